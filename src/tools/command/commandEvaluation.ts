// Where bash turns data into code: prompt expansion (${x@P}), arithmetic (which evaluates
// variables' values, array subscripts and all, so a value like `a[$(rm -rf ~)]` runs its command
// wherever it is used as a number), indirection (${!x}), name arguments (read, printf -v,
// declare), integer and nameref variables. Each such place makes the command ask.
import type * as Unbash from 'unbash/dist/parser';
import { isSensitiveShellVariable } from './commandEnvironment';
import { isLiteral, type ShellWord } from './commandWords';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { forEachChild } = require('unbash') as typeof Unbash;

export const ARITHMETIC_REASON = 'bash reads a variable here as a number or a name, which runs any $(…) subscript held in it';
export const PROMPT_REASON = 'prompt expansion (@P) runs any $(…) or `…` held in the variable\'s value';

const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
const NUMBER = /^\s*-?\s*(0[xX][\da-fA-F]+|\d+(#[\w@]+)?)\s*$/;
const SAFE_SUBSCRIPT = /^\s*(-?\d+|@|\*)\s*$/;
const RISKY_SUBSCRIPT = /\[(?!\s*(-?\d+|@|\*)\s*\])/;
/** Transformations that only quote or change case: they never make code of a value. */
const INERT_TRANSFORMS = new Set(['Q', 'U', 'u', 'L']);
/** Builtins whose arguments name variables (so a subscript in them is evaluated)... */
const NAME_ARGUMENTS = new Set(['read', 'unset', 'mapfile', 'readarray', 'declare', 'typeset', 'local', 'export', 'readonly', 'getopts', 'let']);
/** ...and those where only the word after one of these options does. */
const NAME_OPTIONS: Record<string, string[]> = { printf: ['-v'], test: ['-v', '-R'], '[': ['-v', '-R'], wait: ['-p'] };
const DECLARING = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);

/**
 * Why bash may run code held in data at this node: `opaque` when it surely does (@P), `evaluates`
 * when it does only if a value holds a subscript with a substitution. Undefined elsewhere.
 */
export function evaluation(node: Unbash.SyntaxNode): { kind: 'opaque' | 'evaluates' | 'transform'; reason: string } | undefined {
  switch (node.type) {
    case 'ArithmeticExpansion': case 'ArithmeticCommand': case 'ArithmeticFor': {
      let found = false;
      const scan = (n: Unbash.SyntaxNode): void => {
        if (found || n.type === 'Script' || n.type === 'CompoundList') return;
        found = n.type === 'ArithmeticCommandExpansion' || (n.type === 'ArithmeticWord' && !NUMBER.test(n.value));
        if (!found) forEachChild(n, scan);
      };
      forEachChild(node, scan);
      return found ? { kind: 'evaluates', reason: ARITHMETIC_REASON } : undefined;
    }
    case 'TestBinary':
      return ARITHMETIC_TESTS.has(node.operator) && !(NUMBER.test(node.left.text) && NUMBER.test(node.right.text)) ? { kind: 'evaluates', reason: ARITHMETIC_REASON } : undefined;
    case 'TestUnary':
      return (node.operator === '-v' || node.operator === '-R') && (!isLiteral(node.operand) || RISKY_SUBSCRIPT.test(node.operand.text)) ? { kind: 'evaluates', reason: ARITHMETIC_REASON } : undefined;
    case 'ParameterExpansion': {
      const op = node.operation;
      if (op?.type === 'Transform') {
        const letter = op.operand.text;
        if (letter === 'P') return { kind: 'opaque', reason: PROMPT_REASON };
        if (!INERT_TRANSFORMS.has(letter)) return { kind: 'transform', reason: `the @${letter} transformation makes shell text of a value` };
      }
      if (op?.type === 'Unknown') return { kind: 'transform', reason: `\`${node.text}\` is an expansion the command rules do not know` };
      const numeric = (word: Unbash.Word | undefined) => !word || NUMBER.test(word.text);
      const evaluates = (node.prefix === '!' && !node.index && op?.type !== 'Names') || (node.index !== undefined && !SAFE_SUBSCRIPT.test(node.index.text)) ||
        (op?.type === 'Slice' && !(numeric(op.offset) && numeric(op.length)));
      return evaluates ? { kind: 'evaluates', reason: ARITHMETIC_REASON } : undefined;
    }
    case 'Assignment':
      return node.index !== undefined && !SAFE_SUBSCRIPT.test(node.index.text) ? { kind: 'evaluates', reason: ARITHMETIC_REASON } : undefined;
    default:
      return undefined;
  }
}

/** Why a builtin's arguments make bash evaluate a name or number (read 'a[$(…)]', declare -i, let). */
export function nameArgumentCautions(name: string, args: readonly ShellWord[]): string[] {
  const cautions: string[] = [];
  if (DECLARING.has(name)) {
    // `-i` and `-n` set the attribute; `+i` clears it; `export -n` only stops exporting.
    const attributes = args.filter((w) => /^-[a-zA-Z]+$/.test(w.value)).map((w) => w.value).join('');
    if (/i/.test(attributes) || (name !== 'export' && /n/.test(attributes))) cautions.push(`${name} ${/n/.test(attributes) ? '-n makes a name reference' : '-i makes an integer variable'}, whose uses and assignments bash evaluates, running any $(…) subscript they hold`);
  }
  const names = NAME_ARGUMENTS.has(name) ? args.filter((w) => !/^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/.test(w.raw))
    : args.filter((_, i) => i > 0 && NAME_OPTIONS[name]?.includes(args[i - 1].value));
  for (const word of names) {
    if (name === 'let' || !word.literal || RISKY_SUBSCRIPT.test(word.value)) cautions.push(`${name} evaluates \`${word.raw.slice(0, 200)}\` as a variable name or number, which can run code held in a subscript`);
  }
  for (const variable of assignedVariables(name, args)) {
    if (isSensitiveShellVariable(variable)) cautions.push(`${name} sets ${variable}, which programs it starts may read`);
  }
  return cautions;
}

/** Options of the builtins that set variables named in their arguments, and which take a value. */
const VALUE_OPTIONS: Record<string, string> = { read: 'pdtnNui', mapfile: 'dnOsucC', readarray: 'dnOsucC' };

/** The variables `read`, `mapfile`, `printf -v` and `getopts` set (`read PAGER` sets PAGER). */
function assignedVariables(name: string, args: readonly ShellWord[]): string[] {
  const base = (word: ShellWord | undefined) => (word ? word.value.replace(/\[.*$/s, '') : '');
  if (name === 'printf') return args.flatMap((w, i) => (i > 0 && args[i - 1].value === '-v' ? [base(w)] : []));
  if (name === 'getopts') return [base(args[1])];
  const takesValue = VALUE_OPTIONS[name];
  if (!takesValue) return [];
  const variables: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const value = args[i].value;
    if (value === '-a' && name === 'read') variables.push(base(args[++i]));
    else if (/^-[a-zA-Z]$/.test(value) && takesValue.includes(value[1])) i++;
    else if (!value.startsWith('-')) variables.push(base(args[i]));
  }
  return variables;
}

/** Text that holds what could become a substitution: `$(`, a backtick, `$[`, or an escape that decodes to one. */
export function mayHoldCode(text: string): boolean {
  return /\$[([]|`|\\(x24|x60|0?44|0?140|u0024|u0060|U00000024|U00000060)/.test(text);
}

/** printf / echo -e / $'…' escapes decoded, so `\x24(rm x)` is read as `$(rm x)`. */
export function decodeEscapes(text: string): string {
  return text.replace(/\\(x[\da-fA-F]{1,2}|u[\da-fA-F]{1,4}|U[\da-fA-F]{1,8}|0?[0-7]{1,3})/g, (_, code: string) => {
    const value = code[0] === 'x' || code[0] === 'u' || code[0] === 'U' ? parseInt(code.slice(1), 16) : parseInt(code, 8);
    return value <= 0x10ffff ? String.fromCodePoint(value) : '';
  });
}
