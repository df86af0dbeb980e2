// Words of a parsed bash command as the command rules see them: a literal word means the same
// whenever it runs; any other word is only known when it runs.
import type * as Unbash from 'unbash/dist/parser';

/** One word as the shell would see it: its value when literal, its source text otherwise. */
export type ShellWord = { value: string; literal: boolean; raw: string };

const PART_TEXT_MAX = 500;

export function shellWord(word: Unbash.Word | Unbash.Assignment, src: string): ShellWord {
  const raw = src.slice(word.pos, word.end);
  if (word.type === 'Assignment') {
    const literal = word.value.type === 'Word' && isLiteral(word.value);
    // `NAME=` or `NAME[i]+=`, then the value with its quotes removed when it is literal.
    return { value: literal ? src.slice(word.pos, word.value.pos) + (word.value as Unbash.Word).value : raw, literal, raw };
  }
  return { value: isLiteral(word) ? word.value : raw, literal: isLiteral(word), raw };
}

/** No expansion, substitution, glob or brace: the word means the same whenever it runs. */
export function isLiteral(word: Unbash.Word): boolean {
  return (word.parts ?? []).every((part) =>
    part.type === 'Literal' || part.type === 'SingleQuoted' || part.type === 'AnsiCQuoted' ||
    (part.type === 'DoubleQuoted' && part.parts.every((child) => child.type === 'Literal')));
}

/**
 * A word's text with its quotes removed where they are literal and its expansions left as
 * written: what a value would hold if bash later read it as code (`'$(r'"m x)"` is `$(rm x)`).
 */
export function latentText(word: Unbash.Word): string {
  const partText = (part: Unbash.WordPart | Unbash.DoubleQuotedChild): string => {
    if (part.type === 'Literal' || part.type === 'SingleQuoted' || part.type === 'AnsiCQuoted') return part.value;
    if (part.type === 'DoubleQuoted' || part.type === 'LocaleString') return part.parts.map(partText).join('');
    return part.text;
  };
  return word.parts ? word.parts.map(partText).join('') : word.value;
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * The program a command word names: its value when literal; when only its folder is computed
 * (`$(npm bin)/tsc`), the literal name after the last `/`; otherwise undefined.
 */
export function programName(word: ShellWord): string | undefined {
  if (word.literal) return basename(word.value);
  const tail = /\/([\w.+-]+)"?$/.exec(word.raw);
  return tail ? tail[1] : undefined;
}

export function joinWords(words: readonly ShellWord[], raw = false): string {
  return words.map((w) => (raw || !w.literal ? w.raw : w.value)).join(' ');
}

export function clip(text: string): string {
  return text.length > PART_TEXT_MAX ? `${text.slice(0, PART_TEXT_MAX)}…` : text;
}
