/**
 * A JSON parser fed piece by piece that keeps a bounded amount of what it reads: each string past
 * `stringChars` is cut (saying how long it was), values past `keptChars` in total are dropped
 * (counted), containers deeper than `depth` become a notice. The message's own top-level members
 * (`jsonrpc`, `id`, `result`, …) are always kept, so a cut message still answers its request.
 * Memory stays near `keptChars` however large the input: an oversized MCP message is read as it
 * arrives instead of being buffered whole.
 */
export interface BoundedJsonLimits {
  /** Characters kept of one string (or key). */
  stringChars: number;
  /** Characters kept in all (strings and keys; scalars and containers count a few each). */
  keptChars: number;
  /** Containers nested deeper than this are replaced by a notice. */
  depth: number;
}

/** What was left out of one message. */
export interface JsonCuts {
  strings: number;
  items: number;
  deep: number;
}

export const NESTED_TOO_DEEP = '[nested too deep]';

/** The notice a cut string ends with; `originalLength()` reads it back. */
export function cutNotice(total: number): string {
  return `… [cut: ${total} characters]`;
}

const CUT_SUFFIX = /… \[cut: (\d+) characters\]$/;

/** How long a string was before a cut, or its length when it was not cut. */
export function originalLength(text: string): number {
  const match = CUT_SUFFIX.exec(text);
  return match ? Number(match[1]) : text.length;
}

const enum State {
  Value,
  String,
  Escape,
  Unicode,
  Number,
  Literal,
  AfterValue,
  Key,
  Colon,
  Done,
}

interface Frame {
  kind: 'array' | 'object';
  /** Undefined while its contents are discarded. */
  value: unknown[] | Record<string, unknown> | undefined;
  /** What to put in the parent at the close instead of the value (too deep), if anything. */
  placeholder?: string;
  key?: string;
  /** No value read yet: a close bracket may come. */
  empty: boolean;
}

const LITERALS: Record<string, unknown> = { true: true, false: false, null: null };
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** A number's text past this length is not kept (its value is Infinity or 0 anyway). */
const NUMBER_CHARS = 400;

export class BoundedJsonParser {
  readonly cuts: JsonCuts = { strings: 0, items: 0, deep: 0 };
  private readonly frames: Frame[] = [];
  private state = State.Value;
  private kept = 0;
  private result: unknown;
  private offset = 0;
  // The string being read.
  private parts: string[] = [];
  private partChars = 0;
  private stringChars = 0;
  private stringIsKey = false;
  private discardString = false;
  private hex = '';
  // The number or literal being read.
  private token = '';
  private discardToken = false;

  constructor(private readonly limits: BoundedJsonLimits) {}

  /** Reads the next piece; throws a SyntaxError naming the offset at the first thing that is not JSON. */
  write(text: string): void {
    let i = 0;
    while (i < text.length) {
      if (this.state === State.String) {
        i = this.readString(text, i);
        continue;
      }
      const ch = text[i];
      switch (this.state) {
        case State.Escape:
          this.readEscape(ch);
          break;
        case State.Unicode:
          this.hex += ch;
          if (!/^[0-9a-fA-F]*$/.test(this.hex)) this.fail(ch, i);
          if (this.hex.length === 4) {
            this.appendToString(String.fromCharCode(parseInt(this.hex, 16)));
            this.state = State.String;
          }
          break;
        case State.Number:
          if (/[0-9+\-.eE]/.test(ch)) {
            if (this.token.length < NUMBER_CHARS) this.token += ch;
            break;
          }
          this.endNumber(i);
          continue;
        case State.Literal:
          if (/[a-z]/.test(ch)) {
            this.token += ch;
            if (this.token.length > 5) this.fail(ch, i);
            if (Object.hasOwn(LITERALS, this.token)) this.emit(LITERALS[this.token], this.discardToken);
            break;
          }
          this.fail(ch, i);
          break;
        default:
          if (!isSpace(ch)) this.readStructure(ch, i);
      }
      i++;
    }
    this.offset += text.length;
  }

  /** The value read; throws when the input ended before it did. */
  end(): unknown {
    if (this.state === State.Number) this.endNumber(0);
    if (this.state !== State.Done) throw new SyntaxError('the JSON text ended before its value did');
    return this.result;
  }

  private readStructure(ch: string, i: number): void {
    const top = this.frames[this.frames.length - 1];
    switch (this.state) {
      case State.Value:
        if (ch === ']' && top?.kind === 'array' && top.empty) return this.close(top);
        return this.startValue(ch, i);
      case State.Key:
        if (ch === '}' && top.empty) return this.close(top);
        if (ch !== '"') return this.fail(ch, i);
        return this.startString(true, top.value === undefined);
      case State.Colon:
        if (ch !== ':') return this.fail(ch, i);
        this.state = State.Value;
        return;
      case State.AfterValue:
        if (ch === ',') {
          this.state = top.kind === 'array' ? State.Value : State.Key;
          return;
        }
        if ((ch === ']' && top.kind === 'array') || (ch === '}' && top.kind === 'object')) return this.close(top);
        return this.fail(ch, i);
      default:
        return this.fail(ch, i);
    }
  }

  private startValue(ch: string, i: number): void {
    const parent = this.frames[this.frames.length - 1];
    const parentDiscards = parent !== undefined && parent.value === undefined;
    // The message's own members stay; inside them, past the budget, values are left out.
    const overBudget = !parentDiscards && this.frames.length >= 2 && this.kept >= this.limits.keptChars;
    if (overBudget) this.cuts.items++;
    const discard = parentDiscards || overBudget;
    if (parent) parent.empty = false;
    if (ch === '{' || ch === '[') {
      const tooDeep = !discard && this.frames.length >= this.limits.depth;
      if (tooDeep) this.cuts.deep++;
      this.kept += 2;
      this.frames.push({
        kind: ch === '{' ? 'object' : 'array',
        value: discard || tooDeep ? undefined : ch === '{' ? {} : [],
        empty: true,
        ...(tooDeep && { placeholder: NESTED_TOO_DEEP }),
      });
      this.state = ch === '{' ? State.Key : State.Value;
      return;
    }
    if (ch === '"') return this.startString(false, discard);
    this.token = ch;
    this.discardToken = discard;
    if (ch === '-' || (ch >= '0' && ch <= '9')) this.state = State.Number;
    else if (ch === 't' || ch === 'f' || ch === 'n') this.state = State.Literal;
    else this.fail(ch, i);
  }

  private close(frame: Frame): void {
    this.frames.pop();
    if (frame.value !== undefined) this.emit(frame.value, false);
    else if (frame.placeholder !== undefined) this.emit(frame.placeholder, false);
    else this.emit(undefined, true);
  }

  /** A value is complete: it goes into its container (unless discarded), or it is the result. */
  private emit(value: unknown, discarded: boolean): void {
    const top = this.frames[this.frames.length - 1];
    if (!top) {
      this.result = value;
      this.state = State.Done;
      return;
    }
    this.state = State.AfterValue;
    if (discarded || top.value === undefined) return;
    if (typeof value !== 'string' && (value === null || typeof value !== 'object')) this.kept += 8;
    if (Array.isArray(top.value)) top.value.push(value);
    else Object.defineProperty(top.value, top.key ?? '', { value, enumerable: true, writable: true, configurable: true });
  }

  private startString(isKey: boolean, discard: boolean): void {
    this.state = State.String;
    this.stringIsKey = isKey;
    this.discardString = discard;
    this.parts = [];
    this.partChars = 0;
    this.stringChars = 0;
  }

  /** Reads string text up to the next quote or backslash at once; returns where it stopped. */
  private readString(text: string, from: number): number {
    let stop = from;
    while (stop < text.length && text[stop] !== '"' && text[stop] !== '\\') {
      const quote = text.indexOf('"', stop);
      const slash = text.indexOf('\\', stop);
      stop = Math.min(quote === -1 ? text.length : quote, slash === -1 ? text.length : slash);
    }
    if (stop > from) this.appendToString(text.slice(from, stop));
    if (stop >= text.length) return stop;
    if (text[stop] === '\\') this.state = State.Escape;
    else this.endString();
    return stop + 1;
  }

  private readEscape(ch: string): void {
    const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
    if (ch === 'u') {
      this.hex = '';
      this.state = State.Unicode;
      return;
    }
    if (!Object.hasOwn(simple, ch)) this.fail(ch, 0);
    this.appendToString(simple[ch]);
    this.state = State.String;
  }

  private appendToString(piece: string): void {
    this.stringChars += piece.length;
    if (this.discardString) return;
    const room = this.limits.stringChars - this.partChars;
    if (room <= 0) return;
    const kept = piece.length <= room ? piece : piece.slice(0, room);
    this.parts.push(kept);
    this.partChars += kept.length;
  }

  private endString(): void {
    let value = this.parts.join('');
    this.parts = [];
    if (!this.discardString && this.stringChars > value.length) {
      value += cutNotice(this.stringChars);
      this.cuts.strings++;
    }
    if (!this.discardString) this.kept += value.length;
    if (this.stringIsKey) {
      const top = this.frames[this.frames.length - 1];
      top.key = value;
      top.empty = false;
      this.state = State.Colon;
      return;
    }
    this.emit(value, this.discardString);
  }

  private endNumber(i: number): void {
    if (!NUMBER.test(this.token) && this.token.length < NUMBER_CHARS) this.fail(this.token, i);
    this.emit(Number(this.token), this.discardToken);
  }

  private fail(what: string, i: number): never {
    throw new SyntaxError(`unexpected ${JSON.stringify(what.slice(0, 20))} at character ${this.offset + i}`);
  }
}

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
}
