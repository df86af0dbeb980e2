// Syntax highlighting for the chat's code blocks: highlight.js's core with a chosen set of
// grammars (not the 190 of the full build), bounded in size, cached per block.
// No DOM here: the output is an HTML string that markdown.ts sanitizes with the rest.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import makefile from 'highlight.js/lib/languages/makefile';
import markdown from 'highlight.js/lib/languages/markdown';
import plaintext from 'highlight.js/lib/languages/plaintext';
import powershell from 'highlight.js/lib/languages/powershell';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { CODE_LANGUAGES, resolveLanguage, type CodeLanguage } from '../common/languages';

const GRAMMARS = { bash, c, cpp, csharp, css, diff, dockerfile, go, ini, java, javascript, json, kotlin, makefile, markdown, plaintext, powershell, python, ruby, rust, shell, sql, typescript, xml, yaml };
for (const [name, grammar] of Object.entries(GRAMMARS)) hljs.registerLanguage(name, grammar);

/** Blocks longer than this are shown as plain text: highlighting them would stall the panel. */
export const MAX_HIGHLIGHT_CHARS = 100_000;
/** Blocks with no language are guessed only when this short (a guess runs every grammar). */
export const MAX_GUESS_CHARS = 2_000;
/** A guess weaker than this is no guess: the block stays plain. */
const MIN_GUESS_RELEVANCE = 5;
const GUESS_SUBSET = CODE_LANGUAGES.map((l) => l.id).filter((id) => id !== 'plaintext');

export interface Highlighted {
  /** HTML: text escaped, tokens in `<span class="hljs-…">`. */
  html: string;
  /** The language used; a guess when the fence named none. */
  language: CodeLanguage;
  guessed: boolean;
}

const cache = new Map<string, Highlighted | undefined>();
const CACHE_ENTRIES = 64;
/** Characters the cache may hold (code and HTML): a few large blocks, or many small ones. */
const CACHE_CHARS = 4_000_000;
let cachedChars = 0;
const sizeOf = (key: string, value: Highlighted | undefined) => key.length + (value?.html.length ?? 0);

/**
 * Highlights a block in the language its fence names, or a guessed one for a short block that
 * names none. Undefined when it stays plain: too long, an unknown language, no good guess.
 * Results are cached, so a finished block in a streaming answer is highlighted once.
 */
export function highlightCode(code: string, languageWord: string | undefined): Highlighted | undefined {
  if (code.length > MAX_HIGHLIGHT_CHARS) return undefined;
  const key = `${languageWord ?? ''}\n${code}`;
  if (cache.has(key)) {
    const hit = cache.get(key);
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const result = highlightUncached(code, languageWord);
  cache.set(key, result);
  cachedChars += sizeOf(key, result);
  while (cache.size > CACHE_ENTRIES || cachedChars > CACHE_CHARS) {
    const [oldest, value] = cache.entries().next().value as [string, Highlighted | undefined];
    cache.delete(oldest);
    cachedChars -= sizeOf(oldest, value);
  }
  return result;
}

function highlightUncached(code: string, languageWord: string | undefined): Highlighted | undefined {
  try {
    if (languageWord) {
      const language = resolveLanguage(languageWord);
      if (!language || language.id === 'plaintext') return undefined;
      return { html: hljs.highlight(code, { language: language.id, ignoreIllegals: true }).value, language, guessed: false };
    }
    if (code.length > MAX_GUESS_CHARS || !code.trim()) return undefined;
    const guess = hljs.highlightAuto(code, GUESS_SUBSET);
    const language = resolveLanguage(guess.language);
    if (!language || guess.relevance < MIN_GUESS_RELEVANCE) return undefined;
    return { html: guess.value, language, guessed: true };
  } catch {
    return undefined;
  }
}
