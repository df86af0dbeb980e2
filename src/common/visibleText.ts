/*
 * Text a person reads — in the panel, on a terminal, in an MCP client's question — must show what
 * is there: a crafted name or command may not reorder itself (bidi overrides), hide (zero-width
 * marks), move the cursor, clear the screen, write the clipboard or hide a link (terminal escapes).
 * Such characters are shown as `\u{…}` escapes. This file imports nothing: the panel's script
 * (through src/protocol.ts), the CLI and the tools share it.
 */

// C0 and C1 controls but tab, line feed and carriage return; soft hyphen; the Arabic letter mark;
// the Mongolian vowel separator; zero-width and direction marks; line and paragraph separators;
// bidi embeddings, overrides and isolates; invisible operators; the byte order mark.
const HIDDEN = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff';

const HIDDEN_CHARACTERS = new RegExp(`[${HIDDEN}]`, 'g');
/** On a terminal a carriage return moves the cursor too; one before a line feed ends a line. */
const HIDDEN_ON_TERMINAL = new RegExp(`[${HIDDEN}]|\\r(?!\\n)`, 'g');
/** One line: line feeds and tabs are shown as well. */
const HIDDEN_IN_LINE = new RegExp(`[${HIDDEN}\\t\\n\\r]`, 'g');

const escape = (c: string) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`;

/** For the panel: invisible and direction-changing characters as `\u{…}` escapes; tabs and line breaks stay. */
export function revealHiddenCharacters(text: string): string {
  return text.replace(HIDDEN_CHARACTERS, escape);
}

/** For a terminal, text of several lines (a model's answer): as the panel shows it, and a carriage return that does not end a line escaped too. */
export function terminalText(text: string): string {
  return text.replace(HIDDEN_ON_TERMINAL, escape);
}

/** One line of text from elsewhere (a name, a command, a path) inside a line Toolbelt writes: line breaks and tabs escaped too, so it cannot forge lines. */
export function terminalLine(text: string): string {
  return text.replace(HIDDEN_IN_LINE, escape);
}

/** JSON for a terminal: the same value, with every hidden character inside its strings written as a JSON `\uXXXX` escape. */
export function terminalJson(value: unknown): string {
  // JSON.stringify escapes C0 controls itself; what is left can only stand inside a string.
  return JSON.stringify(value).replace(HIDDEN_CHARACTERS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
