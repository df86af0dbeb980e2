import * as assert from 'node:assert/strict';
import { parse } from 'jsonc-parser';
import { agentConfig, AGENT_KINDS, mergeAgentConfig } from '../../src/tools/agents/agentConfigs';
import { parseArgs } from '../../src/cli/args';

/** The person's own settings file: it may reach Codex's per-user file, never a checked-in one. */
const OPTIONS = { personalArgs: ['--user-settings', '/home/me/my "settings".json'] };
/** What every checked-in entry runs: `toolbelt` from PATH, the workspace as the folder the agent runs in. */
const PORTABLE = { command: 'toolbelt', args: ['mcp'] };
/** A string that holds an absolute path of some machine, POSIX or Windows. */
const ABSOLUTE = /"(\/|[A-Za-z]:\\)/;

describe('agentConfigs: connecting other agents to toolbelt mcp', () => {
  it('gives each agent its file and an entry that starts toolbelt mcp from PATH, with no path of this machine in a checked-in file', () => {
    assert.deepEqual(AGENT_KINDS.map((agent) => [agentConfig(agent, OPTIONS).file, agentConfig(agent, OPTIONS).scope]), [
      ['.mcp.json', 'workspace'],
      ['.cursor/mcp.json', 'workspace'],
      ['.gemini/settings.json', 'workspace'],
      ['~/.codex/config.toml', 'user'],
    ]);
    assert.deepEqual(parse(agentConfig('claude-code', OPTIONS).snippet), { mcpServers: { toolbelt: { type: 'stdio', ...PORTABLE } } });
    assert.deepEqual(parse(agentConfig('gemini-cli', OPTIONS).snippet), { mcpServers: { toolbelt: PORTABLE } });
    // Cursor does not promise the folder its servers start in: the variable it expands to the project's root.
    assert.deepEqual(parse(agentConfig('cursor', OPTIONS).snippet), { mcpServers: { toolbelt: { command: 'toolbelt', args: ['mcp', '--workspace', '${workspaceFolder}'] } } });
    for (const agent of AGENT_KINDS.filter((a) => agentConfig(a).scope === 'workspace')) {
      const snippet = agentConfig(agent, OPTIONS).snippet;
      assert.doesNotMatch(snippet, ABSOLUTE, `${agent}: ${snippet}`);
      assert.doesNotMatch(snippet, /user-settings|settings"\.json|node|cli\.js/, `${agent}: ${snippet}`);
    }
    // The person's own file: their settings file as their choices, the project still the folder Codex runs in.
    assert.equal(agentConfig('codex', OPTIONS).snippet, '[mcp_servers.toolbelt]\ncommand = "toolbelt"\nargs = ["mcp", "--user-settings", "/home/me/my \\"settings\\".json"]\n');
    assert.equal(agentConfig('codex').snippet, '[mcp_servers.toolbelt]\ncommand = "toolbelt"\nargs = ["mcp"]\n');
    assert.throws(() => agentConfig('cursor', { ...OPTIONS, serverName: 'tool belt' }), /letters, digits/);
  });

  it("writes options a caller names explicitly (a test's --state-dir) into every file, after the workspace", () => {
    const explicit = { ...OPTIONS, extraArgs: ['--state-dir', '/tmp/state'] };
    assert.deepEqual(parse(agentConfig('gemini-cli', explicit).snippet).mcpServers.toolbelt.args, ['mcp', '--state-dir', '/tmp/state']);
    assert.deepEqual(parse(agentConfig('cursor', explicit).snippet).mcpServers.toolbelt.args, ['mcp', '--workspace', '${workspaceFolder}', '--state-dir', '/tmp/state']);
    assert.match(agentConfig('codex', explicit).snippet, /args = \["mcp", "--state-dir", "\/tmp\/state", "--user-settings", /);
  });

  it('merges into a JSON file keeping its comments and other servers, replacing its own entry (an old absolute one too)', () => {
    const existing = '{\n  // my servers\n  "mcpServers": {\n    "other": { "command": "x" },\n    "toolbelt": { "command": "node", "args": ["/home/me/.vscode/extensions/toolbelt-0.1.0/dist/cli.js", "mcp", "--workspace", "/home/me/p"] }\n  },\n  "theme": "dark"\n}\n';
    const merged = mergeAgentConfig('gemini-cli', existing, OPTIONS);
    assert.match(merged, /\/\/ my servers/);
    assert.deepEqual(parse(merged), { mcpServers: { other: { command: 'x' }, toolbelt: PORTABLE }, theme: 'dark' });
    assert.doesNotMatch(merged, ABSOLUTE);
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
