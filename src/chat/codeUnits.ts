// The parts of a source file a code snippet can name: top-level declarations and the members of
// classes, interfaces, objects and blocks, found by indentation and a name read from their first
// line. Language-agnostic on purpose (TypeScript, JavaScript, Python, Go, Rust, Java, C, CSS,
// JSON, YAML read well enough): Apply to File shows its result as a diff before writing, so a
// heuristic that misplaces a part costs a look, never a file. Pure string work.

export interface CodeUnit {
  /** First line (comments and decorators above the declaration included). */
  start: number;
  /** Line after the last one, trailing blank lines left out. */
  end: number;
  /** The leading whitespace of the declaration's line. */
  indent: string;
  /** The name the unit is known by (`total`, `import:./items`, `get size`, `line:<a statement's first line>`); none for comments. */
  key?: string;
  isImport: boolean;
  /** For a class, interface, object or other block: the lines of its members, and its closing line if it has one. */
  body?: { start: number; end: number };
  /** Lines that are only comments or decorators: no declaration follows them. */
  commentOnly: boolean;
}

const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'return', 'catch', 'else', 'do', 'try', 'new', 'throw', 'await', 'yield', 'print', 'with', 'elif', 'except', 'match', 'case', 'super', 'this', 'typeof', 'delete', 'void', 'assert', 'raise', 'pass', 'break', 'continue', 'finally', 'defer', 'go', 'select', 'loop']);
const MODIFIERS = /^(?:(?:export|default|declare|abstract|async|public|private|protected|internal|static|readonly|override|final|unsafe|inline|virtual|extern|sealed|partial|const(?=\s+(?:fn|enum)\b)|pub(?:\([^)]*\))?)\s+)+/;
const DECLARATION = /^(?:function\s*\*?|class|interface|type|enum|namespace|module|const|let|var|def|fn|struct|trait|mod|object|val|fun|record|union|macro_rules!)\s*([A-Za-z_$][\w$]*)/;
const LEAF_DECLARATION = /^(?:function|def|fn|func|fun|macro_rules!)\b/;
const CLOSER = /^(?:[}\])]|end\b|<\/)/;
const CONTINUATION = /^(?:else|elif|except|finally|catch)\b/;
const COMMENT = /^(?:\/\/|#(?!!|\s*(?:include|define|if|ifdef|ifndef|else|endif|pragma)\b)|\/\*|\*|--|;|<!--|@[A-Za-z_])/;

/** A line that stands for code the snippet left out: `// ... existing code ...`, `# …`, `// rest of the file unchanged`. */
export function isElisionMarker(line: string): boolean {
  const text = line.trim();
  if (text.length > 100) return false;
  const bare = text
    .replace(/^(?:\/\/+|#+|--|;+|\/\*+|<!--|\{\/\*)\s*/, '')
    .replace(/\s*(?:\*+\/\}?|-->)$/, '')
    .replace(/^[([]\s*|\s*[)\]]$/g, '')
    .trim();
  if (/^(?:\.{3}|…)$/.test(bare)) return true;
  const dotted = /^(?:\.{3}|…)\s*([^.…]*?)\s*(?:\.{3}|…)?$/.exec(bare);
  const phrase = (dotted ? dotted[1] : bare).toLowerCase();
  if (dotted && phrase.split(/\s+/).length <= 8) return true;
  return /^(?:the\s+)?(?:rest of (?:the )?(?:file|code|class|function|module|component|methods?|imports?)|(?:existing|other|remaining|previous|unchanged) (?:code|methods?|functions?|imports?|members?|properties|fields|lines|content|tests?|cases)|unchanged|same as before|as before|keep (?:the )?(?:rest|existing)\b)/.test(phrase) && (dotted !== null || /(?:unchanged|as before|as is|here|\.{3}|…)$/.test(phrase) || phrase.split(/\s+/).length <= 4);
}

/** The name a declaration's first line gives it, if it is one. */
export function keyOf(line: string): { key?: string; isImport: boolean; leaf: boolean } {
  const text = line.trim();
  const imported =
    /^import\b.*?\bfrom\s+['"]([^'"]+)['"]/.exec(text) ??
    /^import\s+['"]([^'"]+)['"]/.exec(text) ??
    /^(?:const|let|var)\s+.+?=\s*require\(\s*['"]([^'"]+)['"]\s*\)/.exec(text) ??
    /^from\s+([\w.]+)\s+import\b/.exec(text) ??
    /^import\s+([\w.]+)\s*;?\s*$/.exec(text) ??
    /^import\s+(?:\w+\s+)?"([^"]+)"/.exec(text) ??
    /^use\s+([\w:]+)/.exec(text) ??
    /^#\s*include\s*[<"]([^>"]+)[>"]/.exec(text) ??
    /^using\s+([\w.]+)\s*;/.exec(text);
  if (imported) return { key: `import:${imported[1]}`, isImport: true, leaf: true };
  if (/^package\s+[\w.]+;?$/.test(text)) return { key: 'package', isImport: true, leaf: true };
  const bare = text.replace(MODIFIERS, '');
  if (/^default\b|^export\s+default\b/.test(text) && !DECLARATION.test(bare)) return { key: 'default', isImport: false, leaf: false };
  const impl = /^impl\b(?:<[^>]*>)?\s*(.+?)\s*(?:where\b.*)?\{?\s*$/.exec(bare);
  if (impl) return { key: `impl ${impl[1].replace(/\s+/g, ' ')}`, isImport: false, leaf: false };
  const goMethod = /^func\b\s*(?:\(\s*\w*\s*\*?\s*(\w+)[^)]*\)\s*)?([A-Za-z_]\w*)/.exec(bare);
  if (goMethod) return { key: goMethod[1] ? `${goMethod[1]}.${goMethod[2]}` : goMethod[2], isImport: false, leaf: true };
  const declared = DECLARATION.exec(bare);
  if (declared && !KEYWORDS.has(declared[1])) return { key: declared[1], isImport: false, leaf: LEAF_DECLARATION.test(bare) || isFunctionValue(bare) };
  const accessor = /^(get|set)\s+([A-Za-z_$#][\w$]*)\s*\(/.exec(bare);
  if (accessor) return { key: `${accessor[1]} ${accessor[2]}`, isImport: false, leaf: true };
  const method = /^\*?([A-Za-z_$#][\w$]*)\s*(?:<[^>]*>)?\s*\(/.exec(bare) ?? /^[\w<>[\],.?*&\s]+?\s+\*?&?([A-Za-z_]\w*)\s*\(/.exec(bare);
  if (method && !KEYWORDS.has(method[1]) && !KEYWORDS.has(bare.split(/\W/)[0])) {
    // `it('adds', …)`, `app.get('/x', …)`-like calls are told apart by their first argument.
    const literal = /^\*?[\w$#.]+\s*\(\s*(['"`][^'"`]*['"`])/.exec(bare);
    return { key: literal ? `${method[1]}(${literal[1]})` : method[1], isImport: false, leaf: !literal };
  }
  const property = /^([A-Za-z_$#][\w$-]*)\s*[?!]?\s*(?::(?!:)|=(?![=>]))/.exec(bare) ?? /^["']([^"']+)["']\s*:/.exec(bare);
  if (property && !KEYWORDS.has(property[1])) return { key: property[1], isImport: false, leaf: isFunctionValue(bare) };
  const selector = /^([^{};()]+?)\s*\{\s*$/.exec(text);
  if (selector && !KEYWORDS.has(selector[1].split(/\W/)[0])) return { key: `css:${selector[1].replace(/\s+/g, ' ')}`, isImport: false, leaf: false };
  return { isImport: false, leaf: false };
}

/** `const f = (a) => …`, `total: function (…)`: a function, replaced whole rather than merged member by member. */
function isFunctionValue(text: string): boolean {
  return /[=:]\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)/.test(text);
}

export function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

function isBlank(line: string): boolean {
  return line.trim() === '';
}

/**
 * Splits the lines [from, to) into units at their shallowest indentation. A unit starts at a line
 * of that indentation that neither closes a block (`}`) nor goes on with one (`else`), and takes
 * the comments and decorators right above it.
 */
export function splitUnits(lines: readonly string[], from = 0, to = lines.length): CodeUnit[] {
  let base = Infinity;
  for (let i = from; i < to; i++) if (!isBlank(lines[i])) base = Math.min(base, indentOf(lines[i]).length);
  if (base === Infinity) return [];
  const units: CodeUnit[] = [];
  let current: { start: number; code?: number } | undefined;
  const close = (end: number) => {
    if (!current) return;
    let last = end;
    while (last > current.start && isBlank(lines[last - 1])) last--;
    units.push(describeUnit(lines, current.start, last, current.code));
    current = undefined;
  };
  for (let i = from; i < to; i++) {
    const line = lines[i];
    if (isBlank(line) || indentOf(line).length !== base) continue;
    const text = line.trim();
    if (CLOSER.test(text) || CONTINUATION.test(text)) continue;
    const comment = COMMENT.test(text) && !isElisionMarker(text);
    if (current && current.code === undefined && !blankBetween(lines, current.start, i)) {
      if (!comment) current.code = i;
      continue;
    }
    close(i);
    current = { start: i, code: comment ? undefined : i };
  }
  close(to);
  return units;
}

function blankBetween(lines: readonly string[], from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (isBlank(lines[i])) return true;
  return false;
}

function describeUnit(lines: readonly string[], start: number, end: number, code: number | undefined): CodeUnit {
  if (code === undefined) return { start, end, key: `comment:${lines.slice(start, end).map((line) => line.trim()).join('\n')}`, indent: indentOf(lines[start]), isImport: false, commentOnly: true };
  const indent = indentOf(lines[code]);
  const { key, isImport, leaf } = keyOf(lines[code]);
  // A statement without a name (`app.listen(3000)`, `if __name__ == …`) is known by its whole first line.
  const unit: CodeUnit = { start, end, indent, key: key ?? `line:${lines[code].trim()}`, isImport, commentOnly: false };
  if (leaf || isImport) return unit;
  // A block: its members are the deeper lines after the declaration, up to a closing line at its own indentation.
  let bodyStart = code + 1;
  while (bodyStart < end && isBlank(lines[bodyStart])) bodyStart++;
  if (bodyStart >= end || indentOf(lines[bodyStart]).length <= indent.length) return unit;
  const last = lines[end - 1];
  const bodyEnd = indentOf(last).length === indent.length && CLOSER.test(last.trim()) ? end - 1 : end;
  if (bodyEnd > bodyStart) unit.body = { start: bodyStart, end: bodyEnd };
  return unit;
}

/** Lines of `source` shifted so that their shallowest indentation becomes `indent`. */
export function reindent(source: readonly string[], indent: string): string[] {
  let base: string | undefined;
  for (const line of source) {
    if (isBlank(line)) continue;
    const own = indentOf(line);
    if (base === undefined || own.length < base.length) base = own;
  }
  if (base === undefined || base === indent) return [...source];
  const from = base;
  return source.map((line) => (isBlank(line) ? '' : line.startsWith(from) ? indent + line.slice(from.length) : indent + line.trimStart()));
}
