import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { changeAgents } from '../../src/tools/agents/agentInstall';
import { agentPolicyFromSettings } from '../../src/policy/agentPolicy';
import type * as AgentsModule from '../../src/vscode/toolsTreeAgents';
import type { AgentsNode } from '../../src/vscode/toolsTreeNodes';
import { EventEmitter } from '../support/fakeQuickInput';
import { requireWithVscode } from '../support/withFakeVscode';
import { TempWorkspace } from '../support/workspace';

const CLI = path.resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');

class TreeItem {
  id?: string;
  description?: string;
  tooltip?: unknown;
  iconPath?: ThemeIcon;
  contextValue?: string;
  command?: { command: string };
  constructor(
    readonly label: string,
    readonly collapsibleState: number,
  ) {}
}
class ThemeIcon {
  constructor(readonly id: string) {}
}
class MarkdownString {
  value = '';
  appendMarkdown(text: string) {
    this.value += text;
    return this;
  }
  appendText(text: string) {
    this.value += text;
    return this;
  }
}
const fakeVscode = { EventEmitter, TreeItem, ThemeIcon, MarkdownString, TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 }, workspace: { workspaceFolders: [] } };

interface Row { depth: number; label: string; description?: string; icon?: string; tooltip?: string }

/** The section's rows as a person sees them once every row is expanded. */
function rowsOf(section: AgentsModule.AgentsSection): Row[] {
  const rows: Row[] = [];
  const visit = (nodes: AgentsNode[], depth: number) => {
    for (const node of nodes) {
      const item = section.item(node) as unknown as TreeItem;
      const tooltip = item.tooltip instanceof MarkdownString ? item.tooltip.value : (item.tooltip as string | undefined);
      rows.push({ depth, label: item.label, description: item.description, icon: item.iconPath?.id, tooltip });
      visit(section.children(node), depth + 1);
    }
  };
  visit(section.roots(), 0);
  return rows;
}

describe("The Tools view's Agents section: each agent protected or not, its loss report, its decisions from the hook's call log", function () {
  this.timeout(60_000);
  let ws: TempWorkspace;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    ws = await TempWorkspace.create({ '.vscode/settings.json': '{\n  "toolbelt.runBash.deniedCommands": ["rm"]\n}\n', 'data/keep.txt': 'x' });
    env = { PATH: path.join(ws.parent, 'no-agents-here'), HOME: ws.parent, TOOLBELT_STATE_DIR: path.join(ws.parent, 'state') };
  });
  afterEach(async () => {
    await ws.dispose();
  });

  /** Claude Code's hook as Claude Code runs it: the event on stdin, the project folder in CLAUDE_PROJECT_DIR. */
  function claudeCall(tool: string, input: Record<string, unknown>, session: string): { code: number | null; stdout: string } {
    const event = { session_id: session, cwd: ws.root, hook_event_name: 'PreToolUse', permission_mode: 'bypassPermissions', tool_name: tool, tool_input: input };
    const run = spawnSync(process.execPath, [CLI, 'hook', 'claude-code'], { input: JSON.stringify(event), encoding: 'utf8', cwd: ws.root, env: { ...env, CLAUDE_PROJECT_DIR: ws.root } });
    return { code: run.status, stdout: run.stdout };
  }

  it('lists protected and not protected agents, the loss report per rule, and the decisions `toolbelt hook` logged, newest first', async () => {
    const { policy } = agentPolicyFromSettings(await ws.read('.vscode/settings.json'));
    await changeAgents('install', ws.root, ['claude-code'], policy);
    const denied = claudeCall('Bash', { command: 'rm -rf data' }, 'session-1');
    assert.match(denied.stdout, /"permissionDecision":\s*"deny"/, 'the hook denied it');
    claudeCall('Read', { file_path: path.join(ws.root, 'data', 'keep.txt') }, 'session-1');
    // The log is the CLI's, in its state folder for this workspace: nowhere in the workspace.
    const logs = await fs.readdir(env.TOOLBELT_STATE_DIR!);
    assert.equal(logs.length, 1);

    const { AgentsSection } = requireWithVscode<typeof AgentsModule>(fakeVscode, [require.resolve('../../src/vscode/toolsTreeAgents')]);
    const section = new AgentsSection(() => ws.root, env);
    await section.reload();
    const rows = rowsOf(section);
    const top = rows[0];
    assert.deepEqual([top.label, top.description], ['Agents', '1 of 5 protected']);
    const agents = rows.filter((r) => r.depth === 1);
    assert.deepEqual(
      agents.map((r) => [r.label, r.description]),
      [
        ['Claude Code', 'protected · 2 calls judged'],
        ['Codex', 'not protected · not found here'],
        ['Gemini CLI', 'not protected · not found here'],
        ['GitHub Copilot (VS Code agent and Copilot CLI)', 'not protected · not found here'],
        ['Cursor', 'not protected · not found here'],
      ],
    );
    const claude = rows.slice(rows.indexOf(agents[0]) + 1, rows.indexOf(agents[1]));
    assert.deepEqual(claude.find((r) => r.label === 'toolbelt.runBash.deniedCommands "rm"')?.description, 'by its permissions + the hook');
    assert.equal(claude.find((r) => r.label === 'sensitive files')?.description, 'by its sandbox + the hook · partly not enforceable');
    assert.equal(claude.find((r) => r.label === 'sensitive files')?.icon, 'warning');
    assert.equal(claude.find((r) => r.label === "the agent's MCP tools")?.description, 'by the hook');
    const decisions = claude.filter((r) => r.depth === 3);
    assert.deepEqual(decisions.map((r) => r.label), ['allow Read', 'deny Bash'], 'newest first');
    assert.match(decisions[1].description ?? '', /^rm -rf data · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.match(decisions[1].tooltip ?? '', /Rule: \.vscode\/settings\.json:2/);
    assert.match(decisions[1].tooltip ?? '', /Session: session-1/);
    assert.equal(decisions[1].icon, 'circle-slash');
    // A not protected agent says so and how to fix it; its decisions are none.
    const codex = rows.slice(rows.indexOf(agents[1]) + 1, rows.indexOf(agents[2]));
    assert.match(codex[0].label, /^Not protected: its own tools run outside the policy/);
    assert.deepEqual(codex.slice(1).map((r) => r.label), ['Recent decisions', 'No calls judged yet']);

    // VS Code's own agent: its built-in tools are not governed until Copilot's hooks file is installed, then governed by hook.
    const copilot = rows.slice(rows.indexOf(agents[3]) + 1, rows.indexOf(agents[4]));
    assert.match(copilot[1].label, /^VS Code's own agent \(run_in_terminal, read_file, .*\): not governed/);
    await changeAgents('install', ws.root, ['copilot'], policy);
    await section.reload();
    const governed = rowsOf(section).find((r) => r.label.startsWith("VS Code's own agent"));
    assert.match(governed?.label ?? '', /: governed by hook \(\.github\/hooks\/toolbelt\.json\)$/);
    assert.ok(!rowsOf(section).some((r) => /\bdeny\b/.test(r.label) && /run_in_terminal/.test(r.label)));

    // Drift: the policy changes after install; reload says so for the agent.
    await ws.write({ '.vscode/settings.json': '{\n  "toolbelt.runBash.deniedCommands": ["rm", "git push"]\n}\n' });
    await section.reload();
    const drifted = rowsOf(section).find((r) => r.label === 'Claude Code');
    assert.match(drifted?.description ?? '', /^drifted/);
    assert.equal(drifted?.icon, 'warning');
  });

  it('says when the policy cannot be read instead of showing agents as they were', async () => {
    await ws.write({ '.vscode/settings.json': '{ "toolbelt.runBash.deniedCommands": [' });
    const { AgentsSection } = requireWithVscode<typeof AgentsModule>(fakeVscode, [require.resolve('../../src/vscode/toolsTreeAgents')]);
    const section = new AgentsSection(() => ws.root, env);
    await section.reload();
    const rows = rowsOf(section);
    assert.equal(rows[0].description, 'the policy cannot be read');
    assert.equal(rows.length, 2);
    assert.match(rows[1].label, /\.vscode\/settings\.json:1: .*deny every call/);
  });
});
