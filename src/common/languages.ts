// The languages a code block can be highlighted in, and what the rest of the editor calls them.
// Pure data and lookups: no DOM and no highlighter, so the host and unit tests can use it too.

export interface CodeLanguage {
  /** highlight.js's name for the grammar (registered in highlight.ts). */
  id: string;
  /** What the block's header shows. */
  label: string;
  /** VS Code's language id, for New File. */
  vscode: string;
  /** The extension a new file of this language gets when the block names no path. */
  extension: string;
  /** Fence info words that mean this language (the id, the label lower-cased and extensions always do). */
  aliases: readonly string[];
}

export const CODE_LANGUAGES: readonly CodeLanguage[] = [
  { id: 'typescript', label: 'TypeScript', vscode: 'typescript', extension: 'ts', aliases: ['ts', 'mts', 'cts', 'tsx'] },
  { id: 'javascript', label: 'JavaScript', vscode: 'javascript', extension: 'js', aliases: ['js', 'mjs', 'cjs', 'jsx', 'node'] },
  { id: 'json', label: 'JSON', vscode: 'json', extension: 'json', aliases: ['jsonc', 'json5'] },
  { id: 'python', label: 'Python', vscode: 'python', extension: 'py', aliases: ['py', 'python3', 'py3', 'gyp'] },
  { id: 'bash', label: 'Bash', vscode: 'shellscript', extension: 'sh', aliases: ['sh', 'shell', 'zsh', 'shellscript', 'ksh'] },
  { id: 'shell', label: 'Shell session', vscode: 'shellscript', extension: 'sh', aliases: ['console', 'shellsession', 'terminal'] },
  { id: 'powershell', label: 'PowerShell', vscode: 'powershell', extension: 'ps1', aliases: ['ps', 'ps1', 'pwsh'] },
  // SCSS and Less read well enough with the CSS grammar (SCSS's own would add 15 KB to the panel).
  { id: 'css', label: 'CSS', vscode: 'css', extension: 'css', aliases: ['scss', 'less', 'sass'] },
  { id: 'xml', label: 'HTML', vscode: 'html', extension: 'html', aliases: ['html', 'htm', 'xhtml', 'svg', 'vue'] },
  { id: 'markdown', label: 'Markdown', vscode: 'markdown', extension: 'md', aliases: ['md', 'mkd', 'mdx'] },
  { id: 'yaml', label: 'YAML', vscode: 'yaml', extension: 'yaml', aliases: ['yml'] },
  { id: 'ini', label: 'TOML', vscode: 'toml', extension: 'toml', aliases: ['toml', 'ini', 'cfg', 'conf', 'properties', 'editorconfig'] },
  { id: 'dockerfile', label: 'Dockerfile', vscode: 'dockerfile', extension: 'Dockerfile', aliases: ['docker'] },
  { id: 'makefile', label: 'Makefile', vscode: 'makefile', extension: 'mk', aliases: ['make', 'mk', 'mak'] },
  { id: 'go', label: 'Go', vscode: 'go', extension: 'go', aliases: ['golang'] },
  { id: 'rust', label: 'Rust', vscode: 'rust', extension: 'rs', aliases: ['rs'] },
  { id: 'java', label: 'Java', vscode: 'java', extension: 'java', aliases: ['jsp'] },
  { id: 'kotlin', label: 'Kotlin', vscode: 'kotlin', extension: 'kt', aliases: ['kt', 'kts'] },
  { id: 'c', label: 'C', vscode: 'c', extension: 'c', aliases: ['h'] },
  { id: 'cpp', label: 'C++', vscode: 'cpp', extension: 'cpp', aliases: ['c++', 'cc', 'cxx', 'hpp', 'hh', 'hxx'] },
  { id: 'csharp', label: 'C#', vscode: 'csharp', extension: 'cs', aliases: ['cs', 'c#'] },
  { id: 'ruby', label: 'Ruby', vscode: 'ruby', extension: 'rb', aliases: ['rb', 'gemspec', 'rake'] },
  { id: 'sql', label: 'SQL', vscode: 'sql', extension: 'sql', aliases: ['postgres', 'postgresql', 'mysql', 'sqlite', 'plsql'] },
  { id: 'diff', label: 'Diff', vscode: 'diff', extension: 'diff', aliases: ['patch', 'udiff'] },
  { id: 'plaintext', label: 'Text', vscode: 'plaintext', extension: 'txt', aliases: ['text', 'txt', 'plain'] },
];

const BY_WORD = new Map<string, CodeLanguage>();
for (const language of CODE_LANGUAGES) {
  for (const word of [language.id, language.label.toLowerCase(), language.extension.toLowerCase(), ...language.aliases]) {
    if (!BY_WORD.has(word)) BY_WORD.set(word, language);
  }
}

/**
 * The language a fence's info word names (`ts`, `TypeScript`, `language-py`, `{.yaml}`), or
 * undefined for a word no registered grammar covers.
 */
export function resolveLanguage(word: string | undefined): CodeLanguage | undefined {
  if (!word) return undefined;
  const cleaned = word
    .trim()
    .toLowerCase()
    .replace(/^\{?\.?/, '')
    .replace(/\}$/, '')
    .replace(/^(?:language|lang)-/, '');
  return BY_WORD.get(cleaned);
}

/** The language of a file, by its name (`src/a.ts` → TypeScript, `Dockerfile` → Dockerfile). */
export function languageOfPath(path: string): CodeLanguage | undefined {
  const name = path.split(/[\\/]/).pop() ?? '';
  if (/^dockerfile$/i.test(name)) return resolveLanguage('dockerfile');
  if (/^(?:gnu)?makefile$/i.test(name)) return resolveLanguage('makefile');
  const extension = /\.([A-Za-z0-9+#]+)$/.exec(name)?.[1];
  return extension ? resolveLanguage(extension) : undefined;
}

/** A file name for a block of this language when it names none: `new-file.ts`, `Dockerfile`. */
export function suggestedFileName(language: CodeLanguage | undefined): string {
  if (!language) return 'new-file.txt';
  return language.id === 'dockerfile' ? 'Dockerfile' : `new-file.${language.extension}`;
}
