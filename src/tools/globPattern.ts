/**
 * A glob from the model, turned into a regular expression that both ripgrep's Rust engine
 * (linear-time) and JavaScript accept. Translating costs time linear in the glob's length (one
 * pass to pair the brackets, one to translate); nothing here runs the glob against paths.
 *
 * Syntax: `*` `?` `[abc]` `[!a-z]` `**` (whole segments), `{a,b}` (nested), `{1..9}` ranges
 * (at most MAX_RANGE_ITEMS), extglobs `?(a|b)` `*(…)` `+(…)` `@(…)`, `\` escapes, a leading `!`
 * to negate the whole glob. A glob without "/" matches file names at any depth.
 */

/** Past this many items in all its brace ranges a glob is refused rather than expanded (`{1..100000}`). */
export const MAX_RANGE_ITEMS = 1000;
/** Longer globs are refused: they are never needed and would not fit one process argument. */
export const MAX_GLOB_LENGTH = 4000;

export interface GlobPattern {
  /** Regex source, anchored, for ripgrep (Rust) and for `new RegExp(source, 'u')`. */
  source: string;
  /** A leading "!": the paths that do NOT match `source`. */
  negated: boolean;
  /**
   * When every match's file name must match this simpler glob (`*`, `?`, `[…]`, flat `{a,b}`
   * only), ripgrep can pre-select files by name with a file type, which honours .gitignore.
   * `exact` says the name glob alone decides (no "/" in the glob).
   */
  nameGlob?: { glob: string; exact: boolean };
}

export class GlobError extends Error {}

/** `anchored`: match from the root even without "/" (the rest of a "<folderName>/…" glob). */
export function parseGlob(input: string, { anchored = false } = {}): GlobPattern {
  if (input.length > MAX_GLOB_LENGTH) throw new GlobError(`The glob is ${input.length} characters long; at most ${MAX_GLOB_LENGTH} are accepted.`);
  let glob = input;
  let negated = false;
  if (glob.startsWith('!') && !glob.startsWith('!(')) {
    negated = true;
    glob = glob.slice(1);
  }
  while (glob.startsWith('./')) glob = glob.slice(2);
  if (glob.startsWith('/')) glob = glob.slice(1);
  const anyDepth = !anchored && !glob.includes('/');
  const body = new Translator(glob).translate();
  const source = `^${anyDepth ? ANY_DIRS : ''}${body}$`;
  return { source, negated, nameGlob: negated ? undefined : nameGlobOf(glob, anyDepth) };
}

/** Compiles the pattern for the plain-Node search (which runs off the main thread). */
export function globTester(input: string): (relativePath: string) => boolean {
  const pattern = parseGlob(input);
  const regex = new RegExp(pattern.source, 'u');
  return pattern.negated ? (p) => !regex.test(p) : (p) => regex.test(p);
}

const ANY_DIRS = '(?:[^/]*/)*';
const ANY_NAME = '[^/]*';
const ANY_PATH = '[\\s\\S]*';
const EXTGLOB_SUFFIX: Record<string, string> = { '?': '?', '*': '*', '+': '+', '@': '' };

class Translator {
  private i = 0;
  /** Brace-range items expanded so far, across the whole glob. */
  private rangeItems = 0;
  /** Positions of the "{" and "(" that have a closing partner (counting nesting of the same kind). */
  private readonly closed = new Set<number>();
  /** From each position, the first unescaped "]" (its index), or -1 when a "/" or the end comes first. */
  private readonly bracketFrom: Int32Array;

  constructor(private readonly glob: string) {
    this.bracketFrom = new Int32Array(glob.length + 2).fill(-1);
    for (let j = glob.length - 1; j >= 0; j--) {
      const c = glob[j];
      this.bracketFrom[j] = c === ']' ? j : c === '/' ? -1 : this.bracketFrom[c === '\\' ? j + 2 : j + 1];
    }
    const open: Record<string, number[]> = { '{': [], '(': [] };
    const partner: Record<string, string> = { '}': '{', ')': '(' };
    for (let j = 0; j < glob.length; j++) {
      const c = glob[j];
      if (c === '\\') j++;
      else if (c === '{' || c === '(') open[c].push(j);
      else if (c === '}' || c === ')') {
        const start = open[partner[c]].pop();
        if (start !== undefined) this.closed.add(start);
      }
    }
  }

  translate(): string {
    return this.sequence(new Set());
  }

  /** Translates until one of `stops` (outside nested groups) or the end; leaves `i` on the stop. */
  private sequence(stops: Set<string>): string {
    let out = '';
    const g = this.glob;
    while (this.i < g.length) {
      const c = g[this.i];
      if (stops.has(c)) break;
      if (c === '\\' && this.i + 1 < g.length) {
        const escaped = this.charAt(this.i + 1);
        out += literal(escaped);
        this.i += 1 + escaped.length;
      } else if (c === '*' && g[this.i + 1] === '*') {
        out += this.globstar();
      } else if ('?*+@!'.includes(c) && g[this.i + 1] === '(' && this.closes(this.i + 1)) {
        out += this.extglob(c);
      } else if (c === '*') {
        out += ANY_NAME;
        this.i++;
      } else if (c === '?') {
        out += '[^/]';
        this.i++;
      } else if (c === '[' && this.classEnd(this.i) > 0) {
        out += this.charClass();
      } else if (c === '{' && this.closes(this.i)) {
        out += this.braces();
      } else {
        const whole = this.charAt(this.i);
        out += literal(whole);
        this.i += whole.length;
      }
    }
    return out;
  }

  /** `**` as a whole segment crosses directories; inside a segment it is a plain `*`. */
  private globstar(): string {
    const g = this.glob;
    let end = this.i;
    while (g[end] === '*') end++;
    const start = this.i;
    this.i = end;
    const segmentStart = start === 0 || g[start - 1] === '/';
    if (!segmentStart || (end < g.length && g[end] !== '/')) return ANY_NAME;
    if (g[end] === '/') {
      this.i = end + 1;
      return ANY_DIRS;
    }
    // Trailing: "a/**" is everything under a; a lone "**" (no "/": any depth already) every name.
    return start === 0 ? ANY_NAME : ANY_PATH;
  }

  private extglob(kind: string): string {
    if (kind === '!') throw new GlobError('Negated extglobs "!(…)" are not supported; use a positive glob, or a leading "!" to negate the whole glob.');
    this.i += 2;
    const alternatives = [this.sequence(new Set(['|', ')']))];
    while (this.glob[this.i] === '|') {
      this.i++;
      alternatives.push(this.sequence(new Set(['|', ')'])));
    }
    this.i++; // ")"
    return `(?:${alternatives.join('|')})${EXTGLOB_SUFFIX[kind]}`;
  }

  private braces(): string {
    const range = /^\{(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])\}/.exec(this.glob.slice(this.i, this.i + 40));
    if (range) {
      this.i += range[0].length;
      const alternatives = rangeAlternatives(range[1], range[2], MAX_RANGE_ITEMS - this.rangeItems);
      this.rangeItems += alternatives.length;
      return alternatives.length === 1 ? alternatives[0] : `(?:${alternatives.join('|')})`;
    }
    this.i++;
    const alternatives = [this.sequence(new Set([',', '}']))];
    while (this.glob[this.i] === ',') {
      this.i++;
      alternatives.push(this.sequence(new Set([',', '}'])));
    }
    this.i++; // "}"
    if (alternatives.length === 1) return literal('{') + alternatives[0] + literal('}');
    return `(?:${alternatives.join('|')})`;
  }

  private charClass(): string {
    const g = this.glob;
    const end = this.classEnd(this.i);
    let j = this.i + 1;
    let negate = false;
    if (g[j] === '!' || g[j] === '^') {
      negate = true;
      j++;
    }
    let members = '';
    while (j < end) {
      if (g[j] === '\\' && j + 1 < end) j++;
      const lo = this.charAt(j);
      j += lo.length;
      let hi = lo;
      if (g[j] === '-' && j + 1 < end) {
        j++;
        if (g[j] === '\\' && j + 1 < end) j++;
        hi = this.charAt(j);
        j += hi.length;
        if (hi.codePointAt(0)! < lo.codePointAt(0)!) throw new GlobError(`Invalid range "${lo}-${hi}" in a character class of the glob.`);
      }
      members += classRange(lo.codePointAt(0)!, hi.codePointAt(0)!);
    }
    this.i = end + 1;
    // A class never matches "/", negated or not.
    if (negate) return `[^/${members}]`;
    return members ? `[${members}]` : '(?:[^\\s\\S])';
  }

  /** Index of the "]" closing the class opened at `start`, or -1 when it is a literal "[". */
  private classEnd(start: number): number {
    const g = this.glob;
    let j = start + 1;
    if (g[j] === '!' || g[j] === '^') j++;
    if (g[j] === ']') j++;
    return j < g.length ? this.bracketFrom[j] : -1;
  }

  /** The whole character (code point) at `k`: an emoji is one character, not two halves. */
  private charAt(k: number): string {
    return String.fromCodePoint(this.glob.codePointAt(k)!);
  }

  /** Whether the group opened at `start` is closed. */
  private closes(start: number): boolean {
    return this.closed.has(start);
  }
}

/** The items of `{from..to}` as regex alternatives; refused past `room` items. */
function rangeAlternatives(from: string, to: string, room: number): string[] {
  const numeric = /\d/.test(from) && /\d/.test(to);
  if (!numeric && (/\d/.test(from) || /\d/.test(to))) return [[...`{${from}..${to}}`].map(literal).join('')];
  const a = numeric ? Number(from) : from.codePointAt(0)!;
  const b = numeric ? Number(to) : to.codePointAt(0)!;
  const count = Math.abs(b - a) + 1;
  if (count > room) {
    throw new GlobError(`The brace range {${from}..${to}} has ${count.toLocaleString('en')} items; at most ${MAX_RANGE_ITEMS} are expanded in one glob. Use "*" or a character class instead.`);
  }
  const step = a <= b ? 1 : -1;
  const items: string[] = [];
  for (let n = a; n !== b + step; n += step) items.push([...(numeric ? String(n) : String.fromCodePoint(n))].map(literal).join(''));
  return items;
}

/** A character as a regex literal both engines read the same way. */
function literal(c: string): string {
  const code = c.codePointAt(0)!;
  const plain = (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
  return plain ? c : `\\u{${code.toString(16)}}`;
}

const SLASH = 0x2f;

/** Members for the code points lo..hi, leaving out "/" (a range such as "!-0" spans it). */
function classRange(lo: number, hi: number): string {
  const item = (a: number, b: number) => (a === b ? literal(String.fromCodePoint(a)) : `${literal(String.fromCodePoint(a))}-${literal(String.fromCodePoint(b))}`);
  if (hi < SLASH || lo > SLASH) return item(lo, hi);
  return (lo < SLASH ? item(lo, SLASH - 1) : '') + (hi > SLASH ? item(SLASH + 1, hi) : '');
}

/**
 * The glob's last segment, when it is a plain name glob (no `**`, no extglob, no nested or
 * range braces, no escapes) and the last "/" is outside every group.
 */
function nameGlobOf(glob: string, anyDepth: boolean): GlobPattern['nameGlob'] {
  let depth = 0;
  let lastSlash = -1;
  for (let j = 0; j < glob.length; j++) {
    const c = glob[j];
    if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') depth = Math.max(0, depth - 1);
    else if (c === '/' && depth === 0) lastSlash = j;
  }
  const name = glob.slice(lastSlash + 1);
  if (!name || name.includes('**') || /[\\()|:]|\.\./.test(name) || /\{[^}]*\{/.test(name)) return undefined;
  if (/[?*+@!]\(/.test(name)) return undefined;
  const leadingAnyDirs = glob.slice(0, lastSlash + 1);
  return { glob: name, exact: anyDepth || leadingAnyDirs === '**/' };
}
