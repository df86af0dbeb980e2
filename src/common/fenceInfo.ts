// What a fenced code block says about itself: its language and the file it is meant for.
// Pure string work (no DOM), shared by the renderer and the unit tests.

export interface FenceInfo {
  /** The first word of the info string (`ts` in ```ts src/a.ts), if any. */
  language?: string;
  /** A path the info string names (```ts src/a.ts, ```ts:src/a.ts, ```ts title="src/a.ts"). */
  path?: string;
}

const MAX_PATH_CHARS = 300;
/** A relative or absolute file path without spaces: `src/a.ts`, `./x/y.py`, `Dockerfile`, `.env.example`. */
const PATH_LIKE = /^(?:\.{0,2}\/)?[\w@.+-]+(?:\/[\w@.+-]+)*$/;

/** Reads a fence's info string. */
export function parseFenceInfo(info: string): FenceInfo {
  const words = info.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return {};
  let [language] = words;
  let path: string | undefined;
  // ```typescript:src/a.ts
  const colon = language.indexOf(':');
  if (colon > 0 && looksLikePath(language.slice(colon + 1))) {
    path = language.slice(colon + 1);
    language = language.slice(0, colon);
  }
  for (const word of words.slice(1)) {
    if (path) break;
    const keyed = /^(?:file|path|filename|filepath|title)=["']?([^"']+)["']?$/i.exec(word);
    if (keyed && looksLikePath(keyed[1])) path = keyed[1];
    else if (looksLikePath(word) && /[./]/.test(word)) path = word;
  }
  return { language: language.replace(/^\{?\.?|\}$/g, '') || undefined, path };
}

/**
 * A path the model wrote in the block's first line as a comment, as models are taught to:
 * `// path: src/a.ts`, `# file: x.py`, `<!-- filepath: index.html -->`, `/* filename: a.css *\/`.
 */
export function pathFromFirstLine(code: string): string | undefined {
  const first = code.slice(0, code.indexOf('\n') === -1 ? code.length : code.indexOf('\n'));
  const match = /^\s*(?:\/\/|#|--|;|\/\*|<!--)\s*(?:file|filepath|filename|path)\s*:\s*(\S+?)\s*(?:\*\/|-->)?\s*$/i.exec(first);
  return match && looksLikePath(match[1]) ? match[1] : undefined;
}

/**
 * A path the model wrote on the line right before the block, alone or labelled:
 * `src/a.ts`, `**src/a.ts**`, `` `src/a.ts`: ``, `File: src/a.ts`, `### path: src/a.ts`.
 * Ordinary sentences are not paths: the line must be the path and at most a label.
 */
export function pathFromLineBefore(text: string): string | undefined {
  const line = text.trimEnd().split('\n').pop()?.trim() ?? '';
  if (!line || line.length > MAX_PATH_CHARS + 20) return undefined;
  const bare = line
    .replace(/^#{1,6}\s+/, '')
    .replace(/^(?:file(?:name|path)?|path)\s*:\s*/i, '')
    .replace(/:$/, '')
    .replace(/^(\*\*|__|\*|_)(.*)\1$/, '$2')
    .replace(/:$/, '')
    .replace(/^(?:file(?:name|path)?|path)\s*:\s*/i, '')
    .replace(/^`([^`]+)`$/, '$1')
    .trim();
  // A bare word ("Example") is no path: it needs a folder or an extension.
  return looksLikePath(bare) && (/\//.test(bare) || /\.[A-Za-z0-9]{1,10}$/.test(bare) || /^(?:Dockerfile|Makefile)$/.test(bare)) ? bare : undefined;
}

function looksLikePath(value: string): boolean {
  return value.length > 0 && value.length <= MAX_PATH_CHARS && PATH_LIKE.test(value) && !/^\.+$/.test(value) && !/^\d+(?:\.\d+)*$/.test(value);
}
