import * as assert from 'node:assert/strict';
import { parse } from 'jsonc-parser';
import { definesServer, moveServerToGoverned } from '../../src/tools/mcp/governedConfig';

const MCP_JSON = `{
  // the team's servers
  "servers": {
    "github": { "command": "npx", "args": ["-y", "server-github"], "env": { "TOKEN": "\${input:gh-token}" } },
    "docs": { "type": "http", "url": "https://example.com/mcp" }
  },
  "inputs": [
    { "id": "gh-token", "type": "promptString", "description": "GitHub token", "password": true },
    { "id": "other", "type": "promptString", "description": "Other" }
  ]
}
`;

describe('Moving a server into Toolbelt\'s own MCP file', () => {
  it('takes it out of .vscode/mcp.json, keeping the rest and the comments, and creates Toolbelt\'s file with its inputs', () => {
    const { mcpJson, governed } = moveServerToGoverned(MCP_JSON, undefined, 'github');
    assert.match(mcpJson, /\/\/ the team's servers/);
    assert.equal(definesServer(mcpJson, 'github'), false);
    assert.equal(definesServer(mcpJson, 'docs'), true);
    const moved = parse(governed) as { servers: Record<string, unknown>; inputs: { id: string }[] };
    assert.deepEqual(moved.servers.github, { command: 'npx', args: ['-y', 'server-github'], env: { TOKEN: '${input:gh-token}' } });
    assert.deepEqual(moved.inputs.map((input) => input.id), ['gh-token'], 'only the inputs the server refers to');
  });

  it('adds to a Toolbelt file that exists, keeping its servers, and does not copy an input twice', () => {
    const existing = '{\n  // ours\n  "servers": { "mine": { "command": "x" } },\n  "inputs": [{ "id": "gh-token", "type": "promptString", "description": "kept" }]\n}\n';
    const { governed } = moveServerToGoverned(MCP_JSON, existing, 'github');
    const moved = parse(governed) as { servers: Record<string, unknown>; inputs: { id: string; description: string }[] };
    assert.match(governed, /\/\/ ours/);
    assert.deepEqual(Object.keys(moved.servers).sort(), ['github', 'mine']);
    assert.deepEqual(moved.inputs.map((input) => input.description), ['kept']);
  });

  it('refuses a server the file does not define', () => {
    assert.throws(() => moveServerToGoverned(MCP_JSON, undefined, 'nope'), /defines no server "nope"/);
  });
});
