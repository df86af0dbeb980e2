import type { ToolHandler } from './builtinTool';

/** A bad expression; the message says what and where, for the model to fix its call. */
export class CalculatorError extends Error {
  override name = 'CalculatorError';
}

type Token =
  | { kind: 'number'; value: number; at: number }
  | { kind: 'name'; value: string; at: number }
  | { kind: 'op'; value: string; at: number }
  | { kind: 'end'; at: number };

const MAX_LENGTH = 1000;
const MAX_DEPTH = 64;

// Maps, not object literals: a name like "constructor" must not find Object.prototype.
const CONSTANTS: ReadonlyMap<string, number> = new Map([['pi', Math.PI], ['e', Math.E], ['tau', 2 * Math.PI]]);

const FUNCTIONS: ReadonlyMap<string, { arity: [number, number]; fn: (...xs: number[]) => number }> = new Map(Object.entries({
  sqrt: { arity: [1, 1], fn: Math.sqrt },
  cbrt: { arity: [1, 1], fn: Math.cbrt },
  abs: { arity: [1, 1], fn: Math.abs },
  round: { arity: [1, 2], fn: (x, digits = 0) => roundTo(x, digits) },
  floor: { arity: [1, 1], fn: Math.floor },
  ceil: { arity: [1, 1], fn: Math.ceil },
  trunc: { arity: [1, 1], fn: Math.trunc },
  sign: { arity: [1, 1], fn: Math.sign },
  min: { arity: [1, Infinity], fn: Math.min },
  max: { arity: [1, Infinity], fn: Math.max },
  pow: { arity: [2, 2], fn: Math.pow },
  exp: { arity: [1, 1], fn: Math.exp },
  ln: { arity: [1, 1], fn: Math.log },
  log: { arity: [1, 2], fn: (x, base = 10) => (base === 10 ? Math.log10(x) : Math.log(x) / Math.log(base)) },
  log10: { arity: [1, 1], fn: Math.log10 },
  log2: { arity: [1, 1], fn: Math.log2 },
  sin: { arity: [1, 1], fn: Math.sin },
  cos: { arity: [1, 1], fn: Math.cos },
  tan: { arity: [1, 1], fn: Math.tan },
  asin: { arity: [1, 1], fn: Math.asin },
  acos: { arity: [1, 1], fn: Math.acos },
  atan: { arity: [1, 1], fn: Math.atan },
  hypot: { arity: [1, Infinity], fn: Math.hypot },
}));

/**
 * Evaluates an arithmetic expression with a recursive-descent parser; nothing is ever run as
 * code. Grammar, loosest first:
 *   sum     := product (('+' | '-') product)*
 *   product := unary (('*' | '/' | '%') unary)*
 *   unary   := ('-' | '+') unary | power
 *   power   := postfix (('^' | '**') unary)?        right-associative, binds tighter than unary minus
 *   postfix := primary '!'*
 *   primary := number | constant | name '(' args ')' | '(' sum ')'
 */
export function evaluate(expression: string): number {
  if (expression.length > MAX_LENGTH) throw new CalculatorError(`Expression is longer than ${MAX_LENGTH} characters.`);
  const parser = new Parser(tokenize(expression), expression);
  const value = parser.parse();
  if (!Number.isFinite(value)) {
    throw new CalculatorError(Number.isNaN(value) ? 'The result is not a number (e.g. sqrt of a negative, 0/0).' : 'The result is infinite (e.g. division by zero).');
  }
  return value;
}

/** Formats a result without float noise: 0.1 + 0.2 gives "0.3". */
export function formatNumber(value: number): string {
  const rounded = Number(value.toPrecision(15));
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

export const calculator: ToolHandler = async (args) => formatNumber(evaluate(String(args.expression)));

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const number = /^(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(source.slice(i));
    if (number) {
      const text = number[0];
      tokens.push({ kind: 'number', value: Number(text.replace(/_/g, '')), at: i });
      i += text.length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i));
    if (name) {
      tokens.push({ kind: 'name', value: name[0].toLowerCase(), at: i });
      i += name[0].length;
      continue;
    }
    if (source.startsWith('**', i)) {
      tokens.push({ kind: 'op', value: '^', at: i });
      i += 2;
      continue;
    }
    const op = ch === '×' ? '*' : ch === '÷' ? '/' : ch === '−' ? '-' : ch;
    if ('+-*/%^(),!'.includes(op)) {
      tokens.push({ kind: 'op', value: op, at: i });
      i++;
      continue;
    }
    throw new CalculatorError(`Unexpected character "${ch}" at position ${i + 1}.`);
  }
  tokens.push({ kind: 'end', at: source.length });
  return tokens;
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly source: string,
  ) {}

  parse(): number {
    if (this.peek().kind === 'end') throw new CalculatorError('The expression is empty.');
    const value = this.sum();
    const rest = this.peek();
    if (rest.kind !== 'end') throw this.unexpected(rest);
    return value;
  }

  private sum(): number {
    let value = this.product();
    for (;;) {
      if (this.accept('+')) value += this.product();
      else if (this.accept('-')) value -= this.product();
      else return value;
    }
  }

  private product(): number {
    let value = this.unary();
    for (;;) {
      if (this.accept('*')) value *= this.unary();
      else if (this.accept('/')) value /= this.unary();
      else if (this.accept('%')) value %= this.unary();
      else return value;
    }
  }

  private unary(): number {
    return this.nested(() => {
      if (this.accept('-')) return -this.unary();
      if (this.accept('+')) return this.unary();
      return this.power();
    });
  }

  private power(): number {
    const base = this.postfix();
    return this.accept('^') ? Math.pow(base, this.unary()) : base;
  }

  private postfix(): number {
    let value = this.primary();
    while (this.accept('!')) value = factorial(value);
    return value;
  }

  private primary(): number {
    const token = this.next();
    if (token.kind === 'number') return token.value;
    if (token.kind === 'op' && token.value === '(') {
      const value = this.nested(() => this.sum());
      this.expect(')');
      return value;
    }
    if (token.kind === 'name') {
      if (this.accept('(')) return this.call(token.value, token.at);
      const constant = CONSTANTS.get(token.value);
      if (constant !== undefined) return constant;
      if (FUNCTIONS.has(token.value)) throw new CalculatorError(`"${token.value}" is a function; call it like ${token.value}(x).`);
      throw new CalculatorError(`Unknown name "${token.value}" at position ${token.at + 1}. Constants: ${[...CONSTANTS.keys()].join(', ')}.`);
    }
    throw this.unexpected(token);
  }

  private call(name: string, at: number): number {
    const fn = FUNCTIONS.get(name);
    if (!fn) throw new CalculatorError(`Unknown function "${name}" at position ${at + 1}. Functions: ${[...FUNCTIONS.keys()].join(', ')}.`);
    const args: number[] = [];
    if (!this.accept(')')) {
      do args.push(this.nested(() => this.sum()));
      while (this.accept(','));
      this.expect(')');
    }
    const [least, most] = fn.arity;
    if (args.length < least || args.length > most) {
      const wanted = least === most ? `${least}` : most === Infinity ? `at least ${least}` : `${least} or ${most}`;
      throw new CalculatorError(`${name}() takes ${wanted} argument${wanted === '1' ? '' : 's'}, got ${args.length}.`);
    }
    return fn.fn(...args);
  }

  private nested(parse: () => number): number {
    if (++this.depth > MAX_DEPTH) throw new CalculatorError(`The expression nests deeper than ${MAX_DEPTH} levels.`);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private next(): Token {
    const token = this.tokens[this.index];
    if (token.kind !== 'end') this.index++;
    return token;
  }

  private accept(op: string): boolean {
    const token = this.peek();
    if (token.kind === 'op' && token.value === op) {
      this.index++;
      return true;
    }
    return false;
  }

  private expect(op: string): void {
    if (!this.accept(op)) {
      const token = this.peek();
      throw new CalculatorError(token.kind === 'end' ? `Missing "${op}" at the end of the expression.` : `Expected "${op}" at position ${token.at + 1}.`);
    }
  }

  private unexpected(token: Token): CalculatorError {
    if (token.kind === 'end') return new CalculatorError('The expression ends too early.');
    const text = token.kind === 'number' ? this.source.slice(token.at).match(/^[\d.eE_+-]+/)?.[0] ?? String(token.value) : token.value;
    return new CalculatorError(`Unexpected "${text}" at position ${token.at + 1}.`);
  }
}

function factorial(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new CalculatorError(`Factorial needs a whole number ≥ 0, got ${n}.`);
  if (n > 170) return Infinity;
  let result = 1;
  for (let k = 2; k <= n; k++) result *= k;
  return result;
}

function roundTo(x: number, digits: number): number {
  if (!Number.isInteger(digits)) throw new CalculatorError('round(x, digits) needs whole-number digits.');
  const factor = 10 ** digits;
  return Math.round(x * factor) / factor;
}
