import * as assert from 'node:assert/strict';
import type { CallToolResult, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { CliFixture } from '../../support/cliFixture';
import { connectToolbeltMcp, type McpConnection } from '../../support/cliProcess';

const SETTINGS = { 'toolbelt.tools.registry': [{ name: 'write_file' }, { name: 'run_bash' }] };

function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/**
 * Some MCP clients accept an elicitation whose form asks for nothing without showing it (a
 * full-access mode), and hooks in others can answer it. toolbelt mcp's question therefore needs an
 * explicit choice: an accept that does not choose "Allow once" approves nothing.
 */
describe('Hostile: an MCP client that accepts every question as it comes approves nothing', function () {
  this.timeout(30_000);
  let fixture: CliFixture;
  let connection: McpConnection | undefined;

  beforeEach(async () => {
    fixture = await CliFixture.create({ settings: SETTINGS, files: { 'src/a.txt': 'alpha\n' } });
  });
  afterEach(async () => {
    await connection?.close();
    connection = undefined;
    await fixture.dispose();
  });

  /** Each answer in turn, for a command that asks and a write to a protected path that asks. */
  async function attempt(answer: ElicitResult): Promise<{ ran: boolean; wrote: boolean; results: string[]; asked: number }> {
    connection = await connectToolbeltMcp(fixture.args('--enable', 'run_bash'), { answer: () => answer });
    const command = await connection.client.callTool({ name: 'run_bash', arguments: { command: 'touch made-by-bash' } });
    const write = await connection.client.callTool({ name: 'write_file', arguments: { path: '.vscode/tasks.json', content: '{"hooked": true}' } });
    const asked = connection.asked.length;
    await connection.close();
    connection = undefined;
    return { ran: await fixture.ws.exists('made-by-bash'), wrote: await fixture.ws.exists('.vscode/tasks.json'), results: [textOf(command), textOf(write)], asked };
  }

  for (const [title, answer] of [
    ['an empty form accepted', { action: 'accept', content: {} }],
    ['an accept with no content at all', { action: 'accept' }],
    ['an accept that chose "Deny"', { action: 'accept', content: { decision: 'Deny' } }],
    ['an accept with a made-up choice', { action: 'accept', content: { decision: 'allow' } }],
  ] as const) {
    it(`${title}: the command does not run and the file is not written`, async () => {
      const { ran, wrote, results, asked } = await attempt(answer as ElicitResult);
      assert.equal(asked, 2, 'both calls asked');
      assert.equal(ran, false, `the command ran: ${results[0]}`);
      assert.equal(wrote, false, `the file was written: ${results[1]}`);
    });
  }

  it('only the choice "Allow once" lets the call run (the check can pass)', async () => {
    const { ran, wrote, results } = await attempt({ action: 'accept', content: { decision: 'Allow once' } });
    assert.equal(ran, true, results[0]);
    assert.equal(wrote, true, results[1]);
  });
});
