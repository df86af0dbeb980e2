import * as assert from 'node:assert/strict';
import { parse } from 'jsonc-parser';
import { agentConfig, AGENT_KINDS, mergeAgentConfig } from '../../src/tools/agentConfigs';
import { parseArgs } from '../../src/cli/args';

const OPTIONS = { cliPath: '/opt/toolbelt/dist/cli.js', workspace: '/home/me/my "project"' };
const ARGS = ['/opt/toolbelt/dist/cli.js', 'mcp', '--workspace', '/home/me/my "project"'];

describe('agentConfigs: connecting other agents to toolbelt mcp', () => {
  it('gives each agent its file and an entry that starts toolbelt mcp for the workspace', () => {
    assert.deepEqual(AGENT_KINDS.map((agent) => [agentConfig(agent, OPTIONS).file, agentConfig(agent, OPTIONS).scope]), [
      ['.mcp.json', 'workspace'],
      ['.cursor/mcp.json', 'workspace'],
      ['.gemini/settings.json', 'workspace'],
      ['~/.codex/config.toml', 'user'],
    ]);
    const claude = parse(agentConfig('claude-code', OPTIONS).snippet);
    assert.deepEqual(claude, { mcpServers: { toolbelt: { type: 'stdio', command: 'node', args: ARGS } } });
    assert.deepEqual(parse(agentConfig('gemini-cli', OPTIONS).snippet), { mcpServers: { toolbelt: { command: 'node', args: ARGS } } });
    assert.equal(
      agentConfig('codex', { ...OPTIONS, extraArgs: ['--user-settings', '/home/me/toolbelt.json'] }).snippet,
      '[mcp_servers.toolbelt]\ncommand = "node"\nargs = ["/opt/toolbelt/dist/cli.js", "mcp", "--workspace", "/home/me/my \\"project\\"", "--user-settings", "/home/me/toolbelt.json"]\n',
    );
    assert.throws(() => agentConfig('cursor', { ...OPTIONS, serverName: 'tool belt' }), /letters, digits/);
  });

  it('merges into a JSON file keeping its comments and other servers, replacing its own entry', () => {
    const existing = '{\n  // my servers\n  "mcpServers": {\n    "other": { "command": "x" },\n    "toolbelt": { "command": "old" }\n  },\n  "theme": "dark"\n}\n';
    const merged = mergeAgentConfig('cursor', existing, OPTIONS);
    assert.match(merged, /\/\/ my servers/);
    assert.deepEqual(parse(merged), { mcpServers: { other: { command: 'x' }, toolbelt: { command: 'node', args: ARGS } }, theme: 'dark' });
    assert.deepEqual(parse(mergeAgentConfig('claude-code', undefined, OPTIONS)), parse(agentConfig('claude-code', OPTIONS).snippet));
  });

  it("merges into Codex's TOML: its table and sub-tables replaced, everything else kept", () => {
    const existing = 'model = "o3"\n\n[mcp_servers.toolbelt]\ncommand = "old"\n\n[mcp_servers.toolbelt.env]\nA = "1"\n\n[mcp_servers.other]\ncommand = "x"\n';
    const merged = mergeAgentConfig('codex', existing, OPTIONS);
    assert.equal(merged, `model = "o3"\n\n${agentConfig('codex', OPTIONS).snippet}\n[mcp_servers.other]\ncommand = "x"\n`);
    assert.equal(mergeAgentConfig('codex', 'model = "o3"\n', OPTIONS), `model = "o3"\n\n${agentConfig('codex', OPTIONS).snippet}`);
  });
});

describe('cli args', () => {
  it('reads values, repeats, switches and positionals; collects problems instead of throwing', () => {
    const specs = { workspace: { value: true }, enable: { value: true, repeat: true }, json: {} };
    const parsed = parseArgs(['--workspace=/w', '--enable', 'a', 'run_bash', '--enable', 'b', '--json', '--', '--not-a-flag'], specs);
    assert.deepEqual([...parsed.flags], [['workspace', ['/w']], ['enable', ['a', 'b']], ['json', ['']]]);
    assert.deepEqual(parsed.positionals, ['run_bash', '--not-a-flag']);
    assert.deepEqual(parseArgs(['--nope', '--json=1', '--workspace', 'a', '--workspace', 'b', '--enable'], specs).errors, [
      'Unknown option --nope.',
      '--json takes no value.',
      '--workspace is given more than once.',
      '--enable needs a value.',
    ]);
  });
});
