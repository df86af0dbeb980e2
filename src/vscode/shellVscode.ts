// The shell's one `require('vscode')`: the extension host resolves every require of it through its
// own interceptors, so the shell's modules share this one instead of requiring it each. A plain
// require, not `import * as` (which would copy all of the API's exports into a wrapper object).
// eslint-disable-next-line @typescript-eslint/no-require-imports
export import vscode = require('vscode');
