import * as assert from 'node:assert/strict';
import type { McpServerConfig } from '../../src/tools/mcp/mcpConfig';
import { approvalQuestion, describeServerDefinition } from '../../src/vscode/sources/serverDefinitionText';
import { externalToolText, problemNaming, sourceContextValue, sourceStateText } from '../../src/vscode/sources/sourceRowText';
import { describeToolResult } from '../../src/vscode/sources/toolResultText';

const stdio: McpServerConfig = {
  name: 'github',
  type: 'stdio',
  command: '/usr/bin/node',
  args: ['server.js', '--token', 'a b'],
  env: { GITHUB_TOKEN: '${input:token}', DEBUG: null },
  envFile: '.env',
  origin: '.vscode/mcp.json',
};

describe('Tool sources as the tree and the approval dialog describe them', () => {
  it('says a server\'s state in a word or two, with the reason of a failure', () => {
    assert.equal(sourceStateText({ state: 'not-started' }, 0), 'not started');
    assert.equal(sourceStateText({ state: 'starting' }, 0), 'starting…');
    assert.equal(sourceStateText({ state: 'running' }, 1), 'running · 1 tool');
    assert.equal(sourceStateText({ state: 'running' }, 7), 'running · 7 tools');
    assert.equal(sourceStateText({ state: 'stopped' }, 0), 'stopped');
    assert.equal(sourceStateText({ state: 'failed', reason: 'workspace not trusted' }, 0), 'failed: workspace not trusted');
    assert.equal(sourceContextValue({ state: 'not-started' }), 'toolbelt.mcpServer.notStarted');
    assert.equal(sourceContextValue({ state: 'failed', reason: 'x' }), 'toolbelt.mcpServer.failed');
  });

  it('describes an outside tool: waiting, locked, asking or not, and its read-only claim as a claim', () => {
    assert.equal(externalToolText({ locked: false, runWithoutAsking: false }), 'asks before each call');
    assert.equal(externalToolText({ locked: false, runWithoutAsking: true, readOnlyHint: true }), 'runs without asking · says read-only');
    assert.equal(externalToolText({ waiting: 'github has not started yet', locked: false, runWithoutAsking: true }), 'waiting: github has not started yet');
    assert.equal(externalToolText({ locked: true, runWithoutAsking: true }), 'needs a trusted workspace');
    assert.equal(externalToolText({ locked: false, runWithoutAsking: false, problem: 'name clash (see the log)' }), 'asks before each call · ⚠ name clash (see the log)');
  });

  it('says when "run without asking" lapsed because the tool changed, and what Toolbelt cut of its definition', () => {
    assert.equal(externalToolText({ locked: false, runWithoutAsking: false, lapsed: true }), 'asks again: its definition changed');
    const notices = ['description cut from 10,485,760 to 2,048 characters', 'input schema cut from 2.3 MB to 16 KB: 40 of 40,000 top-level properties kept, without their details'];
    assert.equal(externalToolText({ locked: false, runWithoutAsking: false, notices }), 'asks before each call · ⚠ description and schema cut');
    assert.equal(externalToolText({ locked: false, runWithoutAsking: true, notices: notices.slice(1) }), 'runs without asking · ⚠ schema cut');
  });

  it('finds the problem that names a tool, and shortens it for its row', () => {
    const problems = {
      warnings: ['toolbelt.tools.registry[3]: unknown tool "gh/x"; it was skipped.'],
      errors: ['toolbelt.tools.registry[2]: "a/b_c" would reach the model as "a_b_c", a name "a_b/c" (toolbelt.tools.registry[1]) already has; "a/b_c" was skipped.'],
    };
    assert.equal(problemNaming('a/b_c', problems), 'name clash (see the log)');
    assert.equal(problemNaming('gh/x', problems), 'unknown tool "gh/x"; it was skipped.');
    assert.equal(problemNaming('calculator', problems), undefined);
  });

  it('shows exactly what a server runs, variables by name only', () => {
    const detail = describeServerDefinition(stdio);
    assert.equal(detail, 'Command: /usr/bin/node server.js --token "a b"\nEnvironment: GITHUB_TOKEN, DEBUG\nEnvironment file: .env\nDefined in: .vscode/mcp.json');
    const http = describeServerDefinition({ name: 'h', type: 'http', url: 'https://x.test/mcp', headers: { Authorization: 'Bearer secret' }, origin: '.vscode/mcp.json' });
    assert.equal(http, 'URL (http): https://x.test/mcp\nHeaders: Authorization\nDefined in: .vscode/mcp.json');
    assert.doesNotMatch(http, /secret/);
    assert.match(approvalQuestion(stdio, false), /^Start the MCP server "github" defined in \.vscode\/mcp\.json\?/);
    assert.match(approvalQuestion(stdio, true), /changed since you allowed it/);
  });

  it('joins the text of another extension\'s result and describes every other part', () => {
    const text = { value: 'first' };
    const data = { mimeType: 'image/png', data: new Uint8Array(12) };
    class LanguageModelPromptTsxPart {
      value = { ctor: 1 };
    }
    assert.equal(
      describeToolResult([text, { value: 'second' }, data, new LanguageModelPromptTsxPart(), 42]),
      'first\nsecond\n[image/png content, 12 bytes, not shown]\n[structured prompt content, not shown]\n[number content, not shown]',
    );
    assert.equal(describeToolResult([]), '');
  });
});
