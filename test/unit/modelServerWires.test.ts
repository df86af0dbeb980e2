import * as assert from 'node:assert/strict';
import OpenAI from 'openai';
import { ModelServer } from '../support/modelServer';
import { toolResults } from '../support/modelServerToolResults';

/*
 * The scripted server's Anthropic Messages and OpenAI Responses wires, read by a real client where
 * one is at hand (OpenAI's SDK for Responses) and by their SSE grammar otherwise: what Claude Code
 * and Codex are driven with must be the real format.
 */

async function sse(response: Response): Promise<{ event: string; data: Record<string, unknown> }[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as Record<string, unknown>;
      return { event, data };
    });
}

describe('The scripted model server: Anthropic Messages and OpenAI Responses', () => {
  let server: ModelServer;
  before(async () => (server = await ModelServer.start()));
  after(() => server.close());
  beforeEach(() => server.reset());

  it("streams a Responses answer OpenAI's own SDK reads: text, a function call and a freeform custom tool call", async () => {
    server.enqueue({ text: 'Running it.', toolCalls: [{ name: 'exec_command', arguments: { cmd: 'ls' } }, { name: 'apply_patch', freeform: true, arguments: '*** Begin Patch\n*** End Patch\n' }] });
    const client = new OpenAI({ apiKey: 'k', baseURL: server.openaiBaseUrl });
    const stream = client.responses.stream({ model: 'scripted', input: 'go' });
    const final = await stream.finalResponse();
    assert.equal(final.output_text, 'Running it.');
    const calls = final.output.filter((item) => item.type === 'function_call' || item.type === 'custom_tool_call');
    assert.deepEqual(
      calls.map((c) => (c.type === 'function_call' ? [c.type, c.name, JSON.parse(c.arguments)] : [c.type, c.name, (c as { input: string }).input])),
      [
        ['function_call', 'exec_command', { cmd: 'ls' }],
        ['custom_tool_call', 'apply_patch', '*** Begin Patch\n*** End Patch\n'],
      ],
    );
    assert.equal(server.requests[0].format, 'responses');
  });

  it('answers a Responses request that does not stream with the whole response', async () => {
    server.enqueue({ text: 'Plain.' });
    const client = new OpenAI({ apiKey: 'k', baseURL: server.openaiBaseUrl });
    const response = await client.responses.create({ model: 'scripted', input: 'go' });
    assert.equal(response.output_text, 'Plain.');
  });

  it("streams a Messages answer in Anthropic's event order, a tool_use's input in input_json_delta pieces", async () => {
    server.enqueue({ text: 'Let me look.', toolCalls: [{ name: 'Bash', id: 'toolu_x', arguments: { command: 'cat .env', description: 'show' } }] });
    const response = await fetch(`${server.anthropicBaseUrl}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', stream: true, messages: [] }) });
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    const events = await sse(response);
    assert.ok(events.every((e) => e.event === e.data.type), 'each event line names its data type');
    assert.deepEqual(
      events.map((e) => e.event).filter((name, i, all) => name !== all[i - 1]),
      ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'],
    );
    const text = events.filter((e) => (e.data.delta as { type?: string })?.type === 'text_delta').map((e) => (e.data.delta as { text: string }).text).join('');
    const input = events.filter((e) => (e.data.delta as { type?: string })?.type === 'input_json_delta').map((e) => (e.data.delta as { partial_json: string }).partial_json).join('');
    assert.equal(text, 'Let me look.');
    assert.deepEqual(JSON.parse(input), { command: 'cat .env', description: 'show' });
    assert.deepEqual(events.find((e) => e.event === 'content_block_start' && (e.data.content_block as { type: string }).type === 'tool_use')?.data.content_block, { type: 'tool_use', id: 'toolu_x', name: 'Bash', input: {} });
    assert.equal((events.find((e) => e.event === 'message_delta')?.data.delta as { stop_reason: string }).stop_reason, 'tool_use');
  });

  it("answers Anthropic errors in its error shape, and records what each format sent back as tool results", async () => {
    server.enqueue({ fault: 'http', status: 401, errorMessage: 'bad key' });
    const failed = await fetch(`${server.anthropicBaseUrl}/v1/messages`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [] }) });
    assert.equal(failed.status, 401);
    assert.deepEqual(await failed.json(), { type: 'error', error: { type: 'authentication_error', message: 'bad key' } });

    await fetch(`${server.anthropicBaseUrl}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'SECRET-1' }] }] }] }),
    });
    await fetch(`${server.openaiBaseUrl}/responses`, { method: 'POST', body: JSON.stringify({ model: 'm', input: [{ type: 'function_call_output', call_id: 'c', output: 'SECRET-2' }] }) });
    assert.deepEqual(server.requests.slice(1).map((r) => [r.format, toolResults(r).join()]), [
      ['anthropic', '[{"type":"text","text":"SECRET-1"}]'],
      ['responses', 'SECRET-2'],
    ]);
  });
});
