import * as assert from 'node:assert/strict';
import { asPromptConversation, PromptToolCallingProvider } from '../../src/providers/promptToolCalling';
import { PromptToolCallParser, toolsPrompt } from '../../src/providers/promptToolCalls';
import type { ChatProvider, ChatRequest, ProviderEvent } from '../../src/providers/types';
import type { ChatTool } from '../../src/tools/interface';

const TOOLS = new Set(['read_file', 'calculator']);

function parse(chunks: string[]) {
  const parser = new PromptToolCallParser(TOOLS, 'id_');
  let text = chunks.map((c) => parser.push(c)).join('');
  const end = parser.finish();
  text += end.text;
  return { text, calls: end.calls };
}

/** Every way of cutting `text` in two, plus one character at a time. */
function splits(text: string): string[][] {
  const ways = [[text], [...text]];
  for (let i = 1; i < text.length; i++) ways.push([text.slice(0, i), text.slice(i)]);
  return ways;
}

describe('prompt-based tool calling', () => {
  describe('PromptToolCallParser', () => {
    const answer = 'Let me look.\n```tool_call\n{"name": "read_file", "arguments": {"path": "README.md"}}\n```\n';

    it('reads a call and shows only the text around it, however the stream is cut', () => {
      for (const chunks of splits(answer)) {
        const { text, calls } = parse(chunks);
        assert.equal(text, 'Let me look.\n', JSON.stringify(chunks));
        assert.equal(calls.length, 1);
        assert.deepEqual(calls[0].call, { id: 'id_1', name: 'read_file', arguments: '{"path":"README.md"}' });
        assert.equal(calls[0].error, undefined);
      }
    });

    it('reads several calls, in order, with text between and after them', () => {
      const text = 'First.\n```tool_call\n{"name":"calculator","arguments":{"expression":"6*7"}}\n```\nThen:\n```tool_call\n{"name":"read_file","arguments":{"path":"a"}}\n```\nDone.';
      const parsed = parse([text]);
      assert.equal(parsed.text, 'First.\nThen:\nDone.');
      assert.deepEqual(parsed.calls.map((c) => c.call.name), ['calculator', 'read_file']);
      assert.deepEqual(parsed.calls.map((c) => c.call.id), ['id_1', 'id_2']);
    });

    it('answers malformed JSON with an error the model can act on, and shows nothing raw', () => {
      const parsed = parse(['```tool_call\n{"name": "read_file", "arguments": {path: README}}\n```']);
      assert.equal(parsed.text, '');
      assert.equal(parsed.calls.length, 1);
      assert.match(parsed.calls[0].error!, /not valid JSON.*Nothing was run.*```tool_call block/s);
    });

    it('answers a block without a name, and one never closed, with errors', () => {
      assert.match(parse(['```tool_call\n{"arguments": {}}\n```']).calls[0].error!, /no "name"/);
      const open = parse(['Sure.\n```tool_call\n{"name": "read_file", "arg']);
      assert.equal(open.text, 'Sure.\n');
      assert.match(open.calls[0].error!, /not closed/);
    });

    it('takes a ```json block as a call only when it names a known tool', () => {
      const call = parse(['```json\n{"name": "calculator", "arguments": {"expression": "1+1"}}\n```\n']);
      assert.equal(call.calls[0].call.name, 'calculator');
      assert.equal(call.text, '');
      const example = '```json\n{"name": "package", "version": "1.0.0"}\n```\n';
      const shown = parse([example]);
      assert.equal(shown.calls.length, 0);
      assert.equal(shown.text, example, 'shown as written, its closing line included');
    });

    it('passes other code blocks and inline backticks through untouched', () => {
      const text = 'Run `npm test`:\n```sh\nnpm test\n```\nand ``x`` too';
      for (const chunks of splits(text)) assert.equal(parse(chunks).text, text, JSON.stringify(chunks));
    });

    it('accepts "parameters" for "arguments" and string arguments as they are', () => {
      assert.equal(parse(['```tool_call\n{"name":"calculator","parameters":{"expression":"2"}}\n```']).calls[0].call.arguments, '{"expression":"2"}');
      assert.equal(parse(['```tool_call\n{"name":"calculator","arguments":"{\\"expression\\":\\"2\\"}"}\n```']).calls[0].call.arguments, '{"expression":"2"}');
    });
  });

  describe('PromptToolCallingProvider', () => {
    const tools: ChatTool[] = [
      { type: 'function', function: { name: 'calculator', description: 'Does sums', parameters: { type: 'object', properties: { expression: { type: 'string' } } } } },
    ];

    class TextOnlyModel implements ChatProvider {
      readonly name = 'ollama';
      readonly model = 'tiny';
      readonly requests: ChatRequest[] = [];
      constructor(private readonly chunks: string[]) {}
      async *stream(request: ChatRequest): AsyncIterable<ProviderEvent> {
        this.requests.push(request);
        for (const text of this.chunks) yield { type: 'text', text };
        yield { type: 'done', finishReason: 'stop' };
      }
    }

    async function collect(provider: ChatProvider, request: ChatRequest): Promise<ProviderEvent[]> {
      const events: ProviderEvent[] = [];
      for await (const event of provider.stream(request)) events.push(event);
      return events;
    }

    it('describes the tools in the system prompt, sends none natively, and turns the answer into events', async () => {
      const inner = new TextOnlyModel(['Working on it.\n``', '`tool_call\n{"name":"calcu', 'lator","arguments":{"expression":"6*7"}}\n``', '`']);
      const events = await collect(new PromptToolCallingProvider(inner), {
        messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'what is 6*7?' }],
        tools,
      });
      assert.deepEqual(inner.requests[0].tools, []);
      const system = inner.requests[0].messages[0];
      assert.equal(system.role, 'system');
      assert.ok(system.content.startsWith('Be brief.\n\n# Tools'));
      assert.match(system.content, /### calculator\nDoes sums/);
      assert.deepEqual(events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text).join(''), 'Working on it.\n');
      const call = events.find((e) => e.type === 'tool_call') as Extract<ProviderEvent, { type: 'tool_call' }>;
      assert.equal(call.call.name, 'calculator');
      assert.equal(call.call.arguments, '{"expression":"6*7"}');
      assert.deepEqual(events.at(-1), { type: 'done', finishReason: 'tool_calls', usage: undefined });
    });

    it('marks an unreadable call so the Agent answers it instead of running it', async () => {
      const events = await collect(new PromptToolCallingProvider(new TextOnlyModel(['```tool_call\nnot json\n```'])), { messages: [{ role: 'user', content: 'x' }], tools });
      const call = events.find((e) => e.type === 'tool_call') as Extract<ProviderEvent, { type: 'tool_call' }>;
      assert.match(call.call.unreadable!, /not valid JSON/);
    });

    it('writes earlier calls and results into the conversation as text', () => {
      const converted = asPromptConversation(
        [
          { role: 'user', content: 'sum please' },
          { role: 'assistant', content: 'Sure.', toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"1+1"}' }, { id: 'c2', name: 'calculator', arguments: '{"expression":"2+2"}' }] },
          { role: 'tool', toolCallId: 'c1', name: 'calculator', content: '2' },
          { role: 'tool', toolCallId: 'c2', name: 'calculator', content: '4' },
        ],
        toolsPrompt(tools),
      );
      assert.deepEqual(converted.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
      assert.equal(converted[2].content, 'Sure.\n\n```tool_call\n{"name":"calculator","arguments":{"expression":"1+1"}}\n```\n\n```tool_call\n{"name":"calculator","arguments":{"expression":"2+2"}}\n```');
      assert.equal(converted[3].content, 'Result of calculator (c1):\n2\n\nResult of calculator (c2):\n4');
    });

    it('passes a request without tools straight through', async () => {
      const inner = new TextOnlyModel(['```tool_call\n{}\n```']);
      const events = await collect(new PromptToolCallingProvider(inner), { messages: [{ role: 'user', content: 'x' }], tools: [] });
      assert.equal(events[0].type, 'text');
      assert.equal(inner.requests[0].messages.length, 1);
    });
  });
});
