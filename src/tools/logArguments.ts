import { createHash } from 'node:crypto';
import { DEFAULT_SENSITIVE_GLOBS, sensitiveGlobFor } from './sensitiveFiles';

/**
 * What of a call's arguments the tool-call log keeps. Every record is bounded whatever the model
 * sent: strings, arrays, key counts and depth are capped with a notice saying what was left out,
 * and the whole argument object stops growing once its JSON reaches ARGUMENT_BYTES. Content that
 * may be a secret is never kept (see withheld()).
 */
export interface BoundLimits {
  stringChars: number;
  arrayItems: number;
  objectKeys: number;
  depth: number;
  argumentBytes: number;
}

export const LOG_LIMITS = Object.freeze({
  /** Characters kept of one string (and of one key). */
  stringChars: 200,
  /** Items kept of one array. */
  arrayItems: 20,
  /** Keys kept of one object. */
  objectKeys: 30,
  /** Levels of nesting kept below the arguments object. */
  depth: 6,
  /** The kept arguments' JSON stops growing past this many bytes. */
  argumentBytes: 12 * 1024,
  /** One whole log line, newline included, is never longer than this. */
  recordBytes: 16 * 1024,
});

/**
 * The second try, for arguments whose bounded JSON still passed argumentBytes (a kept key and a
 * kept string per level can overshoot the budget): small enough that the overshoot stays far
 * under recordBytes.
 */
const TIGHT_LIMITS: Readonly<BoundLimits> = Object.freeze({ stringChars: 40, arrayItems: 5, objectKeys: 10, depth: 3, argumentBytes: 2 * 1024 });

/** Strings longer than this are not searched for sensitive file names (they are cut or withheld anyway). */
const SCANNED_CHARS = 4096;
/** Argument names that hold a path, kept even in a call that names a sensitive file. */
const PATH_KEYS = new Set(['path', 'paths', 'file', 'filename', 'filepath', 'source', 'destination', 'dest', 'target', 'dir', 'directory', 'folder', 'glob', 'uri', 'cwd']);
/** What separates words in a command line or a sentence, when looking for a file name inside one. */
const WORD_SEPARATORS = /[\s'"`;|&<>()=,]+/;

export interface LogArgumentOptions {
  /** `toolbelt.tools.sensitiveFiles`; the default list when absent. */
  sensitiveGlobs?: readonly string[];
  /** The tool's arguments that carry a file's new content (write_file's `content`): never logged. */
  contentArguments?: readonly string[];
}

/**
 * The arguments as the log keeps them: secrets withheld, then every part bounded. Never throws,
 * never changes `args`.
 */
export function logArguments(args: Record<string, unknown>, options: LogArgumentOptions = {}): Record<string, unknown> {
  const safe = withheld(args, options.sensitiveGlobs ?? DEFAULT_SENSITIVE_GLOBS, options.contentArguments);
  const first = boundArguments(safe, LOG_LIMITS);
  return Buffer.byteLength(JSON.stringify(first)) <= LOG_LIMITS.argumentBytes ? first : boundArguments(safe, TIGHT_LIMITS);
}

/** A copy of `args` within `limits`: strings, arrays, keys and depth cut with a notice. */
export function boundArguments(args: Record<string, unknown>, limits: Readonly<BoundLimits> = LOG_LIMITS): Record<string, unknown> {
  // Three quarters: the budget is checked before each item, so the last item and the notices overshoot it.
  const bounded = boundValue(args, 0, { left: Math.floor((limits.argumentBytes * 3) / 4), limits });
  return bounded && typeof bounded === 'object' && !Array.isArray(bounded) ? (bounded as Record<string, unknown>) : {};
}

/**
 * Content that may be a secret, replaced by what it was:
 * - A file's new content (`contentArguments`: write_file's `content`) is never logged: its length and SHA-256 (so a file on disk can be
 *   checked against the call) stand for it. The first characters of a file say little about a
 *   call and are exactly where a `.env` keeps its first key.
 * - A call that names a sensitive file (any argument, or any word of one, matching
 *   `toolbelt.tools.sensitiveFiles`) keeps only its path arguments, numbers and flags; every other
 *   value is replaced by its size — no hash, as a short secret is found from its hash by trying.
 *   This covers MCP tools that write files, and a `run_bash` command such as `echo KEY=… > .env`.
 */
export function withheld(args: Record<string, unknown>, globs: readonly string[], content: readonly string[] = []): Record<string, unknown> {
  const glob = sensitiveNameIn(args, globs);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (glob !== undefined && !PATH_KEYS.has(normalizeKey(key)) && !isScalar(value)) out[key] = `[not logged: ${sizeOf(value)}; the call names a file matching "${glob}"]`;
    else if (content.includes(key) && typeof value === 'string') out[key] = `[not logged: ${sizeOf(value)}${glob === undefined ? `, sha256 ${sha256(value)}` : ''}]`;
    else out[key] = value;
  }
  return out;
}

/** The first sensitive-file glob a top-level string argument, or a word of one, matches. */
function sensitiveNameIn(args: Record<string, unknown>, globs: readonly string[]): string | undefined {
  if (globs.length === 0) return undefined;
  for (const value of Object.values(args)) {
    const strings = typeof value === 'string' ? [value] : Array.isArray(value) ? value.slice(0, LOG_LIMITS.arrayItems).filter((v): v is string => typeof v === 'string') : [];
    for (const text of strings) {
      if (text.length > SCANNED_CHARS) continue;
      const words = text.split(WORD_SEPARATORS).filter((w) => w !== '' && w !== text);
      const glob = sensitiveGlobFor(globs, [text.trim(), ...words]);
      if (glob !== undefined) return glob;
    }
  }
  return undefined;
}

interface Budget {
  /** Bytes of JSON the arguments may still grow by. */
  left: number;
  limits: Readonly<BoundLimits>;
}

/** A copy of `value` within LOG_LIMITS; what is left out is replaced or followed by a notice. */
function boundValue(value: unknown, depth: number, budget: Budget): unknown {
  if (typeof value === 'string') return spend(budget, cutString(value, budget.limits.stringChars));
  if (value === null || typeof value === 'boolean') return spend(budget, value);
  if (typeof value === 'number') return spend(budget, Number.isFinite(value) ? value : String(value));
  if (typeof value !== 'object') return spend(budget, value === undefined ? null : cutString(String(value), budget.limits.stringChars));
  if (depth >= budget.limits.depth) return spend(budget, '[nested too deep]');
  budget.left -= 2;
  return Array.isArray(value) ? boundArray(value, depth, budget) : boundObject(value as Record<string, unknown>, depth, budget);
}

function boundArray(value: unknown[], depth: number, budget: Budget): unknown[] {
  const out: unknown[] = [];
  const room = Math.min(value.length, budget.limits.arrayItems);
  for (let i = 0; i < room && budget.left > 0; i++) {
    budget.left -= 1;
    out.push(boundValue(value[i], depth + 1, budget));
  }
  const left = value.length - out.length;
  if (left > 0) out.push(spend(budget, `… [cut: ${count(left)} more of ${count(value.length)} items]`));
  return out;
}

function boundObject(value: Record<string, unknown>, depth: number, budget: Budget): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let kept = 0;
  let total = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    total++;
    if (kept >= budget.limits.objectKeys || budget.left <= 0) continue;
    const name = cutString(key, budget.limits.stringChars);
    budget.left -= Buffer.byteLength(JSON.stringify(name)) + 2;
    out[name] = boundValue(value[key], depth + 1, budget);
    kept++;
  }
  if (total > kept) out['…'] = spend(budget, `[cut: ${count(total - kept)} more of ${count(total)} keys]`);
  return out;
}

/** The string within `max` characters; a longer one is cut, saying how long it was. */
export function cutString(value: string, max: number = LOG_LIMITS.stringChars): string {
  return value.length > max ? `${value.slice(0, max)}… [cut: ${count(value.length)} characters]` : value;
}

function spend<T>(budget: Budget, value: T): T {
  budget.left -= Buffer.byteLength(JSON.stringify(value) ?? 'null');
  return value;
}

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_\s]/g, '');
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value === 'number' || typeof value === 'boolean';
}

function sizeOf(value: unknown): string {
  if (typeof value === 'string') return `${count(value.length)} characters`;
  if (Array.isArray(value)) return `${count(value.length)} items`;
  if (value && typeof value === 'object') return 'an object';
  return typeof value;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Plain digits, as the log has always written its counts. */
function count(n: number): string {
  return String(n);
}
