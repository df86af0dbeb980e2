import type { JsonSchema, ToolParameters } from './interface';
import type { ToolDefinition } from './types';

/** Output caps shared by the manifest's descriptions and the tools that enforce them. */
export const LIMITS = Object.freeze({
  readFileDefaultLines: 2000,
  readFileMaxChars: 100_000,
  listDirMaxEntries: 1000,
  searchTextDefaultResults: 100,
  searchTextMaxResults: 500,
  searchFilesDefaultResults: 200,
  searchFilesMaxResults: 1000,
  bashDefaultTimeoutSeconds: 60,
  bashMaxTimeoutSeconds: 600,
  bashOutputMaxChars: 30_000,
});

const pathParam = (description: string): JsonSchema => ({ type: 'string', description, minLength: 1 });
const PATH_HELP =
  'Path relative to the workspace root (in a multi-root workspace, "<folderName>/..." reaches another folder).';

function params(properties: Record<string, JsonSchema>, required: string[] = []): ToolParameters {
  return { type: 'object', properties, required };
}

const definitions: ToolDefinition[] = [
  {
    name: 'calculator',
    description:
      'Evaluate an arithmetic expression exactly and return the number. Supports + - * / % ^ (power), ' +
      'parentheses, unary minus, factorial (!), functions sqrt, cbrt, abs, round, floor, ceil, trunc, sign, ' +
      'min, max, pow, exp, ln, log (base 10, or log(x, base)), log2, sin, cos, tan, asin, acos, atan, and ' +
      'the constants pi, e, tau. Use it instead of doing arithmetic in your head.',
    type: 'builtin',
    handler: 'calculator',
    risk: 'read',
    enabledByDefault: true,
    parameters: params(
      { expression: { type: 'string', description: 'The expression, e.g. "(3 + 4) * 2 ^ 3 / sqrt(16)".', minLength: 1, maxLength: 1000 } },
      ['expression'],
    ),
  },
  {
    name: 'get_current_datetime',
    description:
      'Get the current date and time. Returns JSON {iso, date (YYYY-MM-DD), time (HH:MM:SS), timezone}. ' +
      'Without a timezone, or with one that is not recognised, the answer is in UTC.',
    type: 'builtin',
    handler: 'datetime',
    risk: 'read',
    enabledByDefault: true,
    parameters: params({
      timezone: { type: 'string', description: 'IANA time zone name, e.g. "Europe/London" or "America/New_York". Defaults to UTC.' },
    }),
  },
  {
    name: 'generate_uuid',
    description: 'Generate a cryptographically random UUID (version 4). Returns JSON {uuid}.',
    type: 'builtin',
    handler: 'uuid',
    risk: 'read',
    enabledByDefault: true,
    parameters: params({}),
  },
  {
    name: 'read_file',
    description:
      `Read a text file in the workspace. Returns up to ${LIMITS.readFileDefaultLines} lines at a time; ` +
      'use offset and limit to page through longer files (the result says where to continue). ' +
      'Binary files are refused unless encoding is "base64" or "hex".',
    type: 'builtin',
    handler: 'readFile',
    risk: 'read',
    enabledByDefault: true,
    parameters: params(
      {
        path: pathParam(`The file to read. ${PATH_HELP}`),
        encoding: {
          type: 'string',
          description: 'Text encoding of the file (default utf8). "base64" or "hex" return the raw bytes encoded.',
          enum: ['utf8', 'utf-8', 'utf16le', 'latin1', 'ascii', 'base64', 'hex'],
        },
        offset: { type: 'integer', description: 'First line to return, 1-based (default 1).', minimum: 1 },
        limit: {
          type: 'integer',
          description: `Number of lines to return (default and maximum ${LIMITS.readFileDefaultLines}).`,
          minimum: 1,
          maximum: LIMITS.readFileDefaultLines,
        },
      },
      ['path'],
    ),
  },
  {
    name: 'list_dir',
    description:
      'List the entries of a directory in the workspace, directories first, each directory marked with a trailing "/". ' +
      'Use it to explore the project structure.',
    type: 'builtin',
    handler: 'listDir',
    risk: 'read',
    enabledByDefault: true,
    parameters: params({ path: { type: 'string', description: `The directory to list (default "." = the workspace root). ${PATH_HELP}` } }),
  },
  {
    name: 'search_text',
    description:
      'Search the text of the workspace files, like ripgrep: files ignored by .gitignore are skipped. ' +
      'Returns "path:line: text" lines, capped, with the number of matches left out.',
    type: 'builtin',
    handler: 'searchText',
    risk: 'read',
    enabledByDefault: true,
    parameters: params(
      {
        pattern: { type: 'string', description: 'Text to find, or a regular expression when isRegex is true.', minLength: 1 },
        isRegex: { type: 'boolean', description: 'Treat pattern as a regular expression (default false: literal text).' },
        glob: { type: 'string', description: 'Only search files matching this glob, e.g. "**/*.ts" or "src/**". A glob without "/" matches file names at any depth.' },
        caseSensitive: { type: 'boolean', description: 'Match case exactly (default false).' },
        maxResults: {
          type: 'integer',
          description: `Most matches to return (default ${LIMITS.searchTextDefaultResults}, at most ${LIMITS.searchTextMaxResults}).`,
          minimum: 1,
          maximum: LIMITS.searchTextMaxResults,
        },
      },
      ['pattern'],
    ),
  },
  {
    name: 'search_files',
    description:
      'Find workspace files whose path matches a glob such as "**/*.test.ts" or "src/**/index.*". ' +
      'A glob without "/" matches file names at any depth. Files ignored by .gitignore or excluded by the editor are skipped.',
    type: 'builtin',
    handler: 'searchFiles',
    risk: 'read',
    enabledByDefault: true,
    parameters: params(
      {
        pattern: { type: 'string', description: 'The glob to match against workspace-relative paths.', minLength: 1 },
        maxResults: {
          type: 'integer',
          description: `Most paths to return (default ${LIMITS.searchFilesDefaultResults}, at most ${LIMITS.searchFilesMaxResults}).`,
          minimum: 1,
          maximum: LIMITS.searchFilesMaxResults,
        },
      },
      ['pattern'],
    ),
  },
  {
    name: 'write_file',
    description:
      'Create or overwrite a file in the workspace with the given content. Missing parent directories are created; ' +
      'the write is atomic (a reader never sees half a file).',
    type: 'builtin',
    handler: 'writeFile',
    risk: 'write',
    enabledByDefault: true,
    contentArguments: ['content'],
    parameters: params(
      {
        path: pathParam(`The file to write. ${PATH_HELP}`),
        content: { type: 'string', description: 'The complete new content of the file.' },
      },
      ['path', 'content'],
    ),
  },
  {
    name: 'mkdir',
    description: 'Create a directory in the workspace, with any missing parents. Succeeds if it already exists.',
    type: 'builtin',
    handler: 'mkdir',
    risk: 'write',
    enabledByDefault: true,
    parameters: params({ path: pathParam(`The directory to create. ${PATH_HELP}`) }, ['path']),
  },
  {
    name: 'move',
    description:
      'Move or rename a file or directory inside the workspace. Missing parents of the destination are created. ' +
      'Refuses to replace an existing destination unless overwrite is true.',
    type: 'builtin',
    handler: 'move',
    risk: 'write',
    enabledByDefault: true,
    parameters: params(
      {
        source: pathParam(`What to move. ${PATH_HELP}`),
        destination: pathParam('The new path, including the new name.'),
        overwrite: { type: 'boolean', description: 'Replace an existing destination (default false).' },
      },
      ['source', 'destination'],
    ),
  },
  {
    name: 'save_session_context',
    description:
      'Save a markdown summary of this conversation (system prompt and session context) to the workspace\'s ' +
      'session context file, so a later session can pick up where this one left off.',
    type: 'builtin',
    handler: 'saveSessionContext',
    risk: 'write',
    enabledByDefault: true,
    parameters: params(
      { reason: { type: 'string', description: 'Why the context is being saved, e.g. "end of refactoring step 1".', minLength: 1 } },
      ['reason'],
    ),
  },
  {
    name: 'remove',
    description:
      'Delete a file or directory in the workspace. A non-empty directory needs recursive: true. ' +
      'The user is asked to approve each call.',
    type: 'builtin',
    handler: 'remove',
    risk: 'write',
    enabledByDefault: false,
    parameters: params(
      {
        path: pathParam(`What to delete. ${PATH_HELP}`),
        recursive: { type: 'boolean', description: 'Delete a directory with everything in it (default false).' },
      },
      ['path'],
    ),
  },
  {
    name: 'run_bash',
    description:
      'Run a bash command in the workspace root and return its exit code and combined output ' +
      `(long output keeps its head and tail). Stdin is closed; the command is killed after timeoutSeconds ` +
      `(default ${LIMITS.bashDefaultTimeoutSeconds}). The user is asked to approve each call.`,
    type: 'builtin',
    handler: 'runBash',
    risk: 'exec',
    enabledByDefault: false,
    parameters: params(
      {
        command: { type: 'string', description: 'The command line, run by `bash -c`.', minLength: 1 },
        timeoutSeconds: {
          type: 'integer',
          description: `Seconds before the command and its children are killed (default ${LIMITS.bashDefaultTimeoutSeconds}, at most ${LIMITS.bashMaxTimeoutSeconds}).`,
          minimum: 1,
          maximum: LIMITS.bashMaxTimeoutSeconds,
        },
      },
      ['command'],
    ),
  },
];

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** Every builtin tool: the single source of truth for names, descriptions, schemas and risk. */
export const BUILTIN_MANIFEST: readonly ToolDefinition[] = deepFreeze(definitions);

const byName: ReadonlyMap<string, ToolDefinition> = new Map(BUILTIN_MANIFEST.map((d) => [d.name, d]));

export function findBuiltin(name: string): ToolDefinition | undefined {
  return byName.get(name);
}

/** The first sentence of a tool's description: a one-line summary for menus and settings. */
export function summaryOf(definition: Pick<ToolDefinition, 'description'>): string {
  const match = /^(.*?[.!?])(\s|$)/.exec(definition.description);
  return match ? match[1] : definition.description;
}

export const BUILTIN_NAMES: readonly string[] = Object.freeze(BUILTIN_MANIFEST.map((d) => d.name));
