import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { definitionHash } from '../../src/tools/mcp/definitionHash';
import { parseDotenv } from '../../src/tools/mcp/dotenv';
import { inputReferences, parseMcpJson, parseMcpServers, type McpServerConfig, type McpStdioServerConfig } from '../../src/tools/mcp/mcpConfig';
import { readEnvFileText, resolveMcpServer } from '../../src/tools/mcp/mcpVariables';

const MCP_JSON = `{
  // VS Code's format, with comments and trailing commas
  "inputs": [
    { "id": "token", "type": "promptString", "description": "GitHub token", "password": true, },
  ],
  "servers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_TOKEN": "\${input:token}", "PORT": 8080, "DROP": null },
      "envFile": "\${workspaceFolder}/.env",
    },
    "remote": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer \${input:token}" } },
    "legacy": { "type": "sse", "url": "http://localhost:3000/sse" },
    "inferred": { "url": "http://localhost:4000/mcp" },
  },
}`;

describe('MCP config: .vscode/mcp.json and toolbelt.mcp.servers', () => {
  it('parses stdio, http and sse servers and inputs from JSONC', () => {
    const { servers, inputs, errors } = parseMcpJson(MCP_JSON);
    assert.deepEqual(errors, []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.type, s.origin]),
      [
        ['github', 'stdio', '.vscode/mcp.json'],
        ['remote', 'http', '.vscode/mcp.json'],
        ['legacy', 'sse', '.vscode/mcp.json'],
        ['inferred', 'http', '.vscode/mcp.json'],
      ],
    );
    const github = servers[0] as McpStdioServerConfig;
    assert.equal(github.command, 'npx');
    assert.deepEqual(github.args, ['-y', '@modelcontextprotocol/server-github']);
    assert.deepEqual(github.env, { GITHUB_TOKEN: '${input:token}', PORT: '8080', DROP: null });
    assert.equal(github.envFile, '${workspaceFolder}/.env');
    assert.deepEqual(inputs, [{ id: 'token', type: 'promptString', description: 'GitHub token', password: true }]);
    assert.deepEqual(inputReferences(servers[1]), ['token']);
  });

  it('reports each bad entry naming the server and the field, and still loads the others', () => {
    const { servers, errors } = parseMcpServers({
      good: { command: 'node', args: ['server.js'] },
      noCommand: { args: [] },
      badArgs: { command: 'node', args: 'server.js' },
      badEnv: { command: 'node', env: { A: { nested: true } } },
      badType: { type: 'websocket', url: 'ws://x' },
      both: { type: 'http', url: 'http://x', command: 'node' },
      badUrl: { type: 'http', url: 'ftp://x' },
      badHeader: { type: 'http', url: 'http://x', headers: { A: 1 } },
      'a/b': { command: 'node' },
      notObject: 'node server.js',
      unknownInput: { command: 'node', args: ['${input:nope}'] },
    });
    assert.deepEqual(
      servers.map((s) => s.name),
      ['good'],
    );
    const expected: [string, string][] = [
      ['noCommand', '"command"'],
      ['badArgs', '"args"'],
      ['badEnv', '"env.A"'],
      ['badType', '"type"'],
      ['both', '"command"'],
      ['badUrl', '"url"'],
      ['badHeader', '"headers.A"'],
      ['a/b', '"/"'],
      ['notObject', 'must be an object'],
      ['unknownInput', '${input:nope}'],
    ];
    assert.equal(errors.length, expected.length, errors.join('\n'));
    for (const [name, field] of expected) {
      assert.ok(
        errors.some((e) => e.includes(`"${name}"`) && e.includes(field) && e.includes('user settings')),
        `no error naming ${name} and ${field}:\n${errors.join('\n')}`,
      );
    }
  });

  it('reports JSON syntax errors with a position and keeps what parsed; rejects a non-object file', () => {
    const broken = parseMcpJson('{ "servers": { "a": { "command": "node" } ');
    assert.deepEqual(
      broken.servers.map((s) => s.name),
      ['a'],
    );
    assert.match(broken.errors[0], /^\.vscode\/mcp\.json: \w+ at line 1, column \d+\.$/);
    assert.match(parseMcpJson('[1, 2]').errors[0], /must hold a JSON object/);
    assert.deepEqual(parseMcpJson(''), { servers: [], inputs: [], errors: [] });
    assert.match(parseMcpServers([1]).errors[0], /"servers" must be an object/);
  });

  it('reports bad inputs and duplicate input ids', () => {
    const { inputs, errors } = parseMcpServers({}, 'user settings', [
      { id: 'a', type: 'promptString', description: 'A' },
      { id: 'a', type: 'promptString' },
      { id: 'b', type: 'pickString' },
      { type: 'promptString' },
    ]);
    assert.deepEqual(
      inputs.map((i) => i.id),
      ['a'],
    );
    assert.equal(errors.length, 3);
    assert.match(errors.join('\n'), /declared twice/);
    assert.match(errors.join('\n'), /"type" must be "promptString"/);
    assert.match(errors.join('\n'), /"id" must be a non-empty string/);
  });
});

describe('MCP config: variables, inputs and envFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-mcp-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('substitutes ${workspaceFolder}, ${env:NAME} and ${input:id} (asking once per input), merges envFile under env', async () => {
    await fs.writeFile(path.join(dir, '.env'), '# secrets\nexport FROM_FILE="line1\\nline2"\nSHARED=file\nPLAIN=value # comment\n');
    const { servers, inputs } = parseMcpServers(
      {
        s: {
          command: '${workspaceFolder}/bin/server',
          args: ['--token', '${input:token}', '--home', '${env:FIXTURE_HOME}'],
          env: { TOKEN: '${input:token}', SHARED: 'env', REMOVED: null },
          envFile: '.env',
          cwd: 'sub',
        },
      },
      'user settings',
      [{ id: 'token', type: 'promptString', description: 'Token', password: true }],
    );
    const asked: string[] = [];
    const context = {
      workspaceFolder: dir,
      env: { FIXTURE_HOME: '/home/x', REMOVED: 'inherited', PATH: '/bin' },
      resolveInput: async (input: { id: string }) => {
        asked.push(input.id);
        return 's3cret';
      },
    };
    const envFileText = await readEnvFileText(servers[0], context);
    const resolved = await resolveMcpServer(servers[0], inputs, context, envFileText);
    assert.equal(resolved.type, 'stdio');
    if (resolved.type !== 'stdio') return;
    assert.equal(resolved.command, `${dir}/bin/server`);
    assert.deepEqual(resolved.args, ['--token', 's3cret', '--home', '/home/x']);
    assert.equal(resolved.cwd, path.join(dir, 'sub'));
    assert.deepEqual(asked, ['token']);
    assert.equal(resolved.env.TOKEN, 's3cret');
    assert.equal(resolved.env.FROM_FILE, 'line1\nline2');
    assert.equal(resolved.env.SHARED, 'env');
    assert.equal(resolved.env.PLAIN, 'value');
    assert.equal(resolved.env.PATH, '/bin');
    assert.equal('REMOVED' in resolved.env, false);
  });

  it('fails clearly when an input is not given, the envFile is missing, or no folder is open', async () => {
    const { servers, inputs } = parseMcpServers(
      { s: { type: 'http', url: 'https://x.test/mcp', headers: { Authorization: '${input:key}' } } },
      'user settings',
      [{ id: 'key', type: 'promptString', description: 'API key' }],
    );
    await assert.rejects(resolveMcpServer(servers[0], inputs, { resolveInput: async () => undefined }), /no value was given for the input "key" \(API key\)/);
    const withFile = parseMcpServers({ s: { command: 'node', envFile: 'missing.env' } }).servers[0];
    await assert.rejects(readEnvFileText(withFile, { workspaceFolder: dir }), /"s": cannot read "envFile" .*missing\.env: ENOENT/);
    const withFolder = parseMcpServers({ s: { command: '${workspaceFolder}/x' } }).servers[0];
    await assert.rejects(resolveMcpServer(withFolder, [], {}), /no workspace folder is open/);
  });

  it('reads dotenv lines: quotes, export, comments, junk skipped', () => {
    assert.deepEqual(parseDotenv("A=1\n\n# c\nexport B='x # y'\nC=\"q\\\"d\"\nnot a line\nD = spaced \r\nE=\n"), {
      A: '1',
      B: 'x # y',
      C: 'q"d',
      D: 'spaced',
      E: '',
    });
  });
});

describe('MCP definition hash', () => {
  const base: McpServerConfig = { name: 's', type: 'stdio', command: 'node', args: ['a.js'], env: { K: 'v', T: '${input:token}' }, envFile: '.env', cwd: 'x', origin: 'test' };
  const hash = (server: McpServerConfig, envText = 'A=1') => definitionHash(server, envText);

  it('is stable and ignores key order, the name and the origin', () => {
    assert.match(hash(base), /^[0-9a-f]{64}$/);
    assert.equal(hash(base), hash({ ...base }));
    assert.equal(hash(base), hash({ ...base, env: { T: '${input:token}', K: 'v' } }));
    assert.equal(hash(base), hash({ ...base, name: 'other', origin: 'user settings' }));
  });

  it('changes with the command, each argument, env, envFile (path and contents), cwd, url and headers', () => {
    const variants: McpServerConfig[] = [
      { ...base, command: 'bash' },
      { ...base, args: ['b.js'] },
      { ...base, args: ['a.js', '--x'] },
      { ...base, env: { K: 'w', T: '${input:token}' } },
      { ...base, env: { K: 'v', T: '${input:other}' } },
      { ...base, envFile: 'other.env' },
      { ...base, cwd: 'y' },
    ];
    for (const variant of variants) assert.notEqual(hash(variant), hash(base), JSON.stringify(variant));
    assert.notEqual(hash(base, 'A=2'), hash(base, 'A=1'));
    const http: McpServerConfig = { name: 'h', type: 'http', url: 'https://a.test/mcp', headers: { X: '${input:key}' }, origin: 'test' };
    assert.notEqual(definitionHash({ ...http, url: 'https://b.test/mcp' }), definitionHash(http));
    assert.notEqual(definitionHash({ ...http, headers: { X: 'literal' } }), definitionHash(http));
    assert.notEqual(definitionHash({ ...http, type: 'sse' }), definitionHash(http));
  });

  it('does not depend on the values typed for inputs (the source passes the same hash whatever the person typed)', async () => {
    const { servers, inputs } = parseMcpServers({ s: { command: 'node', env: { T: '${input:token}' } } }, 'user settings', [{ id: 'token', type: 'promptString' }]);
    const before = definitionHash(servers[0]);
    const first = await resolveMcpServer(servers[0], inputs, { resolveInput: async () => 'one' });
    const second = await resolveMcpServer(servers[0], inputs, { resolveInput: async () => 'two' });
    assert.equal(first.type === 'stdio' && first.env.T, 'one');
    assert.equal(second.type === 'stdio' && second.env.T, 'two');
    assert.equal(definitionHash(servers[0]), before);
  });
});
