// Apply to File: where a code block goes in the file it names. A block that is the whole file
// replaces it; a snippet replaces the parts it names (a function, a class member, a CSS rule, a
// JSON key) and adds the ones the file lacks, and everything else stays. `// ... existing code ...`
// lines keep what they stand for. The result is shown as a diff before anything is written.
import { type CodeUnit, isElisionMarker, reindent, splitUnits } from './codeUnits';

export interface SnippetMergeInput {
  /** The file's text now; undefined when it does not exist yet. */
  file: string | undefined;
  snippet: string;
  /** Character offsets of the selection in the file's editor, when the person selected something there. */
  selection?: { start: number; end: number };
}

export type SnippetMergeKind = 'new' | 'whole' | 'merged' | 'added' | 'selection' | 'unchanged';

export interface SnippetMerge {
  kind: SnippetMergeKind;
  /** The file as it would be. */
  text: string;
  /** Names of the parts the snippet replaced (`total`, `Inventory.add`, `imports`). */
  replaced: string[];
  /** Names of the parts it added (`the code` for statements without a name). */
  added: string[];
  /** Parts whose `...` lines could not be placed: kept as they are in the file. */
  unresolved: string[];
}

interface Edit {
  start: number;
  end: number;
  lines: string[];
}

export function mergeSnippet(input: SnippetMergeInput): SnippetMerge {
  const snippet = trimBlankEdges(splitLines(input.snippet.replace(/\r\n?/g, '\n')));
  const result = (kind: SnippetMergeKind, text: string, parts: Partial<Pick<SnippetMerge, 'replaced' | 'added' | 'unresolved'>> = {}): SnippetMerge => ({
    kind: input.file !== undefined && text === input.file ? 'unchanged' : kind,
    text,
    replaced: parts.replaced ?? [],
    added: parts.added ?? [],
    unresolved: parts.unresolved ?? [],
  });
  if (input.file === undefined || input.file.trim() === '') return result('new', snippet.length ? `${snippet.join('\n')}\n` : '');
  const eol = input.file.includes('\r\n') ? '\r\n' : '\n';
  const normalized = input.file.replace(/\r\n?/g, '\n');
  const lines = splitLines(normalized);
  const join = (out: string[]) => out.join(eol) + (normalized.endsWith('\n') ? eol : '');

  const fileUnits = splitUnits(lines);
  const snippetUnits = splitUnits(snippet);
  if (!snippet.some(isElisionMarker) && coversAll(lines, fileUnits, snippet, snippetUnits)) return result('whole', join(snippet));

  const merger = new Merger(lines, snippet);
  merger.block(fileUnits, { start: 0, end: lines.length }, snippetUnits, true);
  const { start, end } = input.selection ?? { start: 0, end: 0 };
  if (merger.replaced.every((name) => name === 'imports') && end > start) {
    const before = normalized.slice(0, Math.min(start, normalized.length));
    const after = normalized.slice(Math.min(end, normalized.length));
    const atLineStart = before === '' || before.endsWith('\n');
    const indent = atLineStart ? (/^[ \t]*/.exec(normalized.slice(start))?.[0] ?? '') : '';
    const placed = atLineStart ? reindent(snippet, indent).join('\n') : snippet.join('\n').trimStart();
    const joined = before + placed + (after === '' || after.startsWith('\n') || !atLineStart ? '' : '\n') + after;
    return result('selection', eol === '\n' ? joined : joined.replace(/\n/g, eol));
  }
  return result(merger.replaced.length > 0 ? 'merged' : 'added', join(merger.apply()), merger);
}

/** Every part the file names is in the snippet, whole: the snippet is the whole file. */
function coversAll(lines: readonly string[], units: CodeUnit[], snippet: readonly string[], snippetUnits: CodeUnit[]): boolean {
  const named = units.filter(isNamed);
  // A whole file comes with its imports: one left out means the block is a part, and merging keeps it.
  if (units.some((unit) => unit.isImport && !snippetUnits.some((s) => s.key === unit.key))) return false;
  if (named.length === 0) {
    // Nothing named to go by (a script, JSON, Markdown): most of the file's lines are in the block.
    const given = new Set(snippet.map((line) => line.trim()).filter(Boolean));
    const code = lines.map((line) => line.trim()).filter(Boolean);
    return code.filter((line) => given.has(line)).length >= 0.6 * code.length;
  }
  return named.every((unit) => snippetUnits.some((s) => s.key === unit.key && covers(lines, unit, snippet, s)));
}

/** The snippet's version of a block holds every named member of the file's (recursively). */
function covers(lines: readonly string[], unit: CodeUnit, snippet: readonly string[], given: CodeUnit): boolean {
  if (!unit.body) return true;
  const members = splitUnits(lines, unit.body.start, unit.body.end).filter(isNamed);
  if (members.length === 0) return true;
  if (!given.body) return false;
  const offered = splitUnits(snippet, given.body.start, given.body.end);
  return members.every((member) => offered.some((s) => s.key === member.key && covers(lines, member, snippet, s)));
}

function isNamed(unit: CodeUnit): boolean {
  return unit.key !== undefined && !unit.isImport && !unit.commentOnly && !unit.key.startsWith('line:');
}

class Merger {
  readonly replaced: string[] = [];
  readonly added: string[] = [];
  readonly unresolved: string[] = [];
  private readonly edits: Edit[] = [];
  private readonly used = new Set<string>();

  constructor(
    private readonly lines: readonly string[],
    private readonly snippet: readonly string[],
  ) {}

  /** Merges the snippet's units into the file's units of one block (the file itself, or a class body). */
  block(units: CodeUnit[], region: { start: number; end: number }, given: CodeUnit[], topLevel: boolean, owner = ''): void {
    const memberIndent = units[0]?.indent ?? given[0]?.indent ?? '';
    const separator = units.some((unit, i) => i > 0 && unit.start > units[i - 1].end) || units.length < 2 ? [''] : [];
    let anchor: number | undefined;
    let pending: string[][] = [];
    for (const unit of given) {
      const text = this.snippet.slice(unit.start, unit.end);
      if (text.every((line) => line.trim() === '' || isElisionMarker(line))) continue;
      if (topLevel && unit.isImport) {
        this.mergeImport(units, unit, text);
        continue;
      }
      const match = this.find(units, unit.key) ?? (unit.isImport || unit.commentOnly ? undefined : this.findDeep(units, unit.key, owner));
      if (!match) {
        pending.push(reindent(text, memberIndent));
        this.added.push(nameOf(unit, owner));
        continue;
      }
      if (pending.length && match.region === units) {
        this.edits.push({ start: match.unit.start, end: match.unit.start, lines: pending.flatMap((lines) => [...lines, ...separator]) });
        pending = [];
      }
      this.mergeUnit(match.unit, unit, match.region === units ? owner : match.owner);
      if (match.region === units) anchor = match.unit.end;
    }
    if (pending.length === 0) return;
    const at = anchor ?? units.at(-1)?.end ?? region.end;
    const previous = units.filter((unit) => unit.end <= at).at(-1);
    if (previous && separator.length === 0) this.continueList(previous, pending);
    this.edits.push({ start: at, end: at, lines: pending.flatMap((lines) => [...(at > region.start ? separator : []), ...lines]) });
  }

  /** Puts the file back as the edits say. */
  apply(): string[] {
    const edits = [...this.edits].sort((a, b) => a.start - b.start);
    const out: string[] = [];
    let position = 0;
    for (const edit of edits) {
      if (edit.start < position) continue; // overlaps an edit already made (cannot happen with distinct units)
      out.push(...this.lines.slice(position, edit.start), ...edit.lines);
      position = edit.end;
    }
    out.push(...this.lines.slice(position));
    return out;
  }

  private mergeUnit(unit: CodeUnit, given: CodeUnit, owner: string): void {
    const name = nameOf(given, owner);
    const text = reindent(this.snippet.slice(given.start, given.end), unit.indent);
    const elided = text.some(isElisionMarker);
    if (unit.body && given.body && (elided || !covers(this.lines, unit, this.snippet, given))) {
      // Some members left out: the declaration line is the snippet's, the members merge one by one.
      const header = text.slice(0, given.body.start - given.start);
      const before = this.lines.slice(unit.start, unit.body.start);
      this.edits.push({ start: unit.start, end: unit.body.start, lines: header });
      if (header.join('\n') !== before.join('\n')) this.replaced.push(name);
      this.block(splitUnits(this.lines, unit.body.start, unit.body.end), unit.body, splitUnits(this.snippet, given.body.start, given.body.end), false, name);
      return;
    }
    const original = this.lines.slice(unit.start, unit.end);
    const merged = elided ? anchorMerge(original, text) : text;
    if (!merged) {
      this.unresolved.push(name);
      return;
    }
    const lastOriginal = original.at(-1)?.trimEnd() ?? '';
    const lastMerged = merged.at(-1)?.trimEnd() ?? '';
    // A member of a comma-separated list (JSON, an object literal) keeps its comma.
    if (lastOriginal.endsWith(',') && !/[,;{[(]$/.test(lastMerged) && merged.length) merged[merged.length - 1] = `${merged.at(-1)!.trimEnd()},`;
    this.edits.push({ start: unit.start, end: unit.end, lines: merged });
    this.replaced.push(name);
  }

  /** Same module: the names imported are joined; a new module goes after the file's imports. */
  private mergeImport(units: CodeUnit[], given: CodeUnit, text: string[]): void {
    const existing = units.find((unit) => unit.isImport && unit.key === given.key);
    if (existing) {
      const line = this.lines.slice(existing.start, existing.end).join('\n');
      const joined = joinImports(line, text.join('\n'));
      if (joined === undefined || joined === line) return;
      this.edits.push({ start: existing.start, end: existing.end, lines: joined.split('\n') });
      this.replaced.push('imports');
      return;
    }
    const lastImport = units.filter((unit) => unit.isImport).at(-1);
    const firstCode = units.find((unit) => !unit.commentOnly);
    const at = lastImport?.end ?? firstCode?.start ?? 0;
    this.edits.push({ start: at, end: at, lines: lastImport ? text : [...text, ''] });
    this.added.push('an import');
  }

  private find(units: CodeUnit[], key: string | undefined): { unit: CodeUnit; region: CodeUnit[]; owner: string } | undefined {
    if (key === undefined) return undefined;
    const unit = units.find((u) => u.key === key && !this.used.has(`${u.start}`));
    if (!unit) return undefined;
    this.used.add(`${unit.start}`);
    return { unit, region: units, owner: '' };
  }

  /** A member given on its own (a method without its class): found in the blocks of the file, one level down at a time. */
  private findDeep(units: CodeUnit[], key: string | undefined, owner: string): { unit: CodeUnit; region: CodeUnit[]; owner: string } | undefined {
    if (key === undefined) return undefined;
    for (const unit of units) {
      if (!unit.body) continue;
      const members = splitUnits(this.lines, unit.body.start, unit.body.end);
      const inner = nameOf(unit, owner);
      const found = this.find(members, key) ?? this.findDeep(members, key, inner);
      if (found) return { ...found, owner: found.owner || inner };
    }
    return undefined;
  }

  /** Adds a comma to the list's last member before more members follow it. */
  private continueList(previous: CodeUnit, pending: string[][]): void {
    const last = this.lines[previous.end - 1];
    if (!/,\s*$/.test(last) && !/[;{[(]\s*$/.test(last) && pending.length && /^\s*["'\w$-]+["']?\s*:/.test(pending[0][0] ?? '')) {
      this.edits.push({ start: previous.end - 1, end: previous.end, lines: [`${last.trimEnd()},`] });
      const final = pending.at(-1)!;
      final[final.length - 1] = final[final.length - 1].replace(/,\s*$/, '');
    }
  }
}

/**
 * A part given with `...` lines: the lines between them replace the matching lines of the
 * file's part, and each `...` keeps the file's lines up to where the next given line is found.
 * Undefined when a given line after a `...` matches nothing.
 */
export function anchorMerge(original: readonly string[], given: readonly string[]): string[] | undefined {
  const segments: string[][] = [[]];
  for (const line of given) {
    if (isElisionMarker(line)) segments.push([]);
    else segments.at(-1)!.push(line);
  }
  const out: string[] = [];
  let position = 0;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const code = segment.filter((line) => line.trim() !== '');
    const last = i === segments.length - 1;
    if (i > 0) {
      if (code.length === 0) {
        if (last) out.push(...original.slice(position));
        if (last) position = original.length;
        continue;
      }
      let start = findLine(original, code[0], position);
      if (start < 0 && last) start = tailStart(original, code, position);
      if (start < 0) return undefined;
      out.push(...original.slice(position, start));
      position = start;
    }
    if (last) {
      out.push(...segment);
      position = original.length;
    } else {
      const end = code.length ? findLine(original, code.at(-1)!, position) : -1;
      out.push(...segment);
      if (end >= 0) position = end + 1;
    }
  }
  return out;
}

/** Where the file's lines start matching the end of `code` (its closing lines), at or after `from`; -1 if nowhere. */
function tailStart(original: readonly string[], code: readonly string[], from: number): number {
  let matched = 0;
  while (matched < code.length && original.length - 1 - matched >= from && original[original.length - 1 - matched].trim() === code[code.length - 1 - matched].trim()) matched++;
  return matched > 0 ? original.length - matched : -1;
}

/** The first line at or after `from` that is `line` (spaces aside), else the most similar one if it is similar enough. */
function findLine(lines: readonly string[], line: string, from: number): number {
  const wanted = line.trim();
  for (let i = from; i < lines.length; i++) if (lines[i].trim() === wanted) return i;
  let best = -1;
  let bestScore = 0.5;
  for (let i = from; i < lines.length; i++) {
    const score = similarity(lines[i], wanted);
    if (score > bestScore) [best, bestScore] = [i, score];
  }
  return best;
}

function similarity(a: string, b: string): number {
  const words = (text: string) => text.split(/[^\w$]+/).filter(Boolean);
  const left = words(a);
  const right = words(b);
  if (left.length === 0 || right.length === 0) return 0;
  const pool = [...right];
  let common = 0;
  for (const word of left) {
    const index = pool.indexOf(word);
    if (index >= 0) {
      common++;
      pool.splice(index, 1);
    }
  }
  return (2 * common) / (left.length + right.length);
}

/** `import { a } from 'x'` + `import { b } from 'x'` → `import { a, b } from 'x'` (and Python's `from x import a`); undefined when they cannot be joined. */
export function joinImports(existing: string, given: string): string | undefined {
  if (existing.trim() === given.trim()) return existing;
  const js = /^(\s*import\s+(?:type\s+)?)\{([^}]*)\}(\s*from\s+['"][^'"]+['"];?\s*)$/;
  const py = /^(\s*from\s+[\w.]+\s+import\s+)\(?([^)]*?)\)?(\s*)$/;
  for (const pattern of [js, py]) {
    const a = pattern.exec(existing);
    const b = pattern.exec(given);
    if (!a || !b) continue;
    const names = (list: string) => list.split(',').map((name) => name.trim()).filter(Boolean);
    const all = [...names(a[2])];
    for (const name of names(b[2])) if (!all.includes(name)) all.push(name);
    return pattern === js ? `${a[1]}{ ${all.join(', ')} }${a[3]}` : `${a[1]}${all.join(', ')}${a[3]}`;
  }
  return undefined;
}

function nameOf(unit: CodeUnit, owner: string): string {
  const key = unit.key;
  if (!key || key.startsWith('line:') || key.startsWith('comment:')) return 'the code';
  const bare = key.replace(/^css:/, '').replace(/^import:/, 'the import of ');
  return owner && owner !== 'the code' ? `${owner}.${bare}` : bare;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function trimBlankEdges(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start].trim() === '') start++;
  while (end > start && lines[end - 1].trim() === '') end--;
  return lines.slice(start, end);
}
