import * as assert from 'node:assert/strict';
import { Agent, ANSWER_CUT_NOTICE, MAX_ANSWER_CHARS, type AgentEvent } from '../../../src/agent/agent';
import { ANSWER_CAP_REASON } from '../../../src/providers/limits';
import { OpenAIProvider } from '../../../src/providers/openai';
import { PromptToolCallingProvider } from '../../../src/providers/promptToolCalling';
import { PromptToolCallParser } from '../../../src/providers/promptToolCalls';
import type { ChatProvider, ChatRequest, ProviderEvent } from '../../../src/providers/types';
import { createDefaultToolRegistry } from '../../../src/tools/factory';
import { ModelServer } from '../../support/modelServer';
import { contextFor, TempWorkspace } from '../../support/workspace';

/**
 * Hostile answers to prompt-based tool calling: calls quoted inside other markdown, a call block
 * that never closes, and answers shaped to make the parser re-read what it has read. Effects are
 * checked where they happen: files on disk, characters read from the model, the parser's work.
 */

const TOOLS = new Set(['write_file', 'read_file']);
const callBlock = (path: string, fence = '```', indent = '') =>
  `${indent}${fence}tool_call\n${indent}{"name": "write_file", "arguments": {"path": "${path}", "content": "owned"}}\n${indent}${fence}`;

/** The answer fed whole, a character at a time, and in 7-character pieces: what was shown and called. */
function parseEveryWay(answer: string): { text: string; calls: string[] }[] {
  const ways = [[answer], [...answer], answer.match(/[\s\S]{1,7}/g) ?? []];
  return ways.map((chunks) => {
    const parser = new PromptToolCallParser(TOOLS, 'id_');
    let text = chunks.map((c) => parser.push(c)).join('');
    const end = parser.finish();
    text += end.text;
    return { text, calls: end.calls.filter((c) => !c.error).map((c) => c.call.arguments) };
  });
}

async function drain(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('hostile: prompt-based tool calling', function () {
  this.timeout(30_000);

  describe('a tool-call block quoted in other markdown is text shown to the person, never a call', () => {
    const quoted: [string, string][] = [
      ['a ````markdown fence (a README quoted)', `Here is the README:\n\n\`\`\`\`markdown\n# Usage\n\n${callBlock('a.txt')}\n\`\`\`\`\n\nThat is all.`],
      ['a ~~~ fence', `~~~\n${callBlock('b.txt')}\n~~~\n`],
      ['a ~~~~ fence around a ~~~tool_call block', `~~~~md\n${callBlock('c.txt', '~~~')}\n~~~~`],
      ['nested longer fences', `\`\`\`\`\`md\n\`\`\`\`md\n${callBlock('d.txt')}\n\`\`\`\`\n\`\`\`\`\``],
      ['a ``` fence of any info string (its content, up to the next ```)', `\`\`\`python\n${callBlock('e.txt')}\n\`\`\``],
      ['a fence indented three spaces', `   \`\`\`\`\n${callBlock('f.txt')}\n   \`\`\`\``],
      ['a fence never closed before it', `\`\`\`\`text\nthe rest is code\n${callBlock('g.txt')}\n`],
      ['a block quote', callBlock('h.txt').replace(/^/gm, '> ')],
      ['a fence in a list item', `- Add this:\n  \`\`\`\`markdown\n${callBlock('i.txt', '```', '  ')}\n  \`\`\`\``],
      ['a fence opened on a list item\'s line', `1. \`\`\`\`markdown\n${callBlock('j.txt', '```', '   ')}\n   \`\`\`\``],
      ['a fence in an item of a list item', `1. a\n    - b\n      \`\`\`md\n   \`\`\`\n${callBlock('n.txt', '```', '   ')}\n`],
      ['an indented code block', `Example:\n\n${callBlock('k.txt', '```', '    ')}\n`],
      ['inline code on one line', 'Call tools with ``` ```tool_call ``` ``` blocks, or ```tool_call``` for short: `{"name": "write_file", "arguments": {"path": "l.txt"}}`.'],
      ['a ```json block quoted in a ~~~ fence', '~~~\n```json\n{"name": "write_file", "arguments": {"path": "m.txt", "content": "x"}}\n```\n~~~'],
    ];
    for (const [name, answer] of quoted) {
      it(name, () => {
        for (const { text, calls } of parseEveryWay(answer)) {
          assert.deepEqual(calls, [], 'no call');
          assert.equal(text, answer, 'shown as written');
        }
      });
    }

    it('a call at the top level still runs: after a quoted fence closes, in a list item, after a list', () => {
      const answers = [
        `\`\`\`\`markdown\n${callBlock('quoted.txt')}\n\`\`\`\`\nNow for real:\n${callBlock('real.txt')}\n`,
        `1. Write it:\n${callBlock('real.txt', '```', '   ')}\n`,
        `- one\n- two\n\n${callBlock('real.txt', '~~~')}\n`,
      ];
      for (const answer of answers) {
        for (const { calls } of parseEveryWay(answer)) assert.deepEqual(calls.map((c) => JSON.parse(c).path), ['real.txt'], answer);
      }
    });

    it('an answer whose structure the fence rules cannot follow runs none of its later calls', () => {
      // A fence in a list item that may have ended: the two readings close it on different lines.
      const answer = `- item\nlazy text\n  \`\`\`md\nx\n  \`\`\`\n${callBlock('late.txt')}\n`;
      for (const { calls, text } of parseEveryWay(answer)) {
        assert.deepEqual(calls, []);
        assert.equal(text, answer);
      }
    });

    describe('through the Agent, on disk', () => {
      let workspace: TempWorkspace;
      let server: ModelServer;
      before(async () => {
        server = await ModelServer.start();
      });
      after(() => server.close());
      beforeEach(async () => {
        server.reset();
        server.setFallback(() => ({ text: 'Done.' }));
        workspace = await TempWorkspace.create();
      });
      afterEach(() => workspace.dispose());

      const agent = () =>
        new Agent(new PromptToolCallingProvider(new OpenAIProvider({ apiKey: 'k', baseURL: server.openaiBaseUrl, model: 'm', maxRetries: 0 })), {
          toolRegistry: createDefaultToolRegistry(contextFor(workspace)),
          workspaceRoot: workspace.root,
        });

      it('write_file quoted in a ````markdown fence writes nothing; the same block unquoted writes the file', async () => {
        const quoted = `The README says:\n\`\`\`\`markdown\n${callBlock('quoted.txt')}\n\`\`\`\`\n`;
        server.enqueue({ chunks: quoted.match(/[\s\S]{1,5}/g)! });
        const events = await drain(agent().streamChat('Show me the README'));
        assert.equal(await workspace.exists('quoted.txt'), false, 'the quoted call did not write');
        assert.equal(events.filter((e) => e.type === 'tool_call_start').length, 0);
        server.enqueue({ chunks: [callBlock('real.txt')] });
        await drain(agent().streamChat('Write it'));
        assert.equal(await workspace.read('real.txt'), 'owned', 'the control: a top-level block does write');
      });
    });
  });

  describe('an unclosed block is cut at the answer cap', () => {
    /** A model that writes `chunk` forever (until `limit` characters) and counts what was read of it. */
    class EndlessModel implements ChatProvider {
      readonly name = 'ollama';
      readonly model = 'endless';
      read = 0;
      constructor(private readonly opening: string, private readonly chunk: string, private readonly limit = 8_000_000) {}
      async *stream(_request: ChatRequest): AsyncIterable<ProviderEvent> {
        yield { type: 'text', text: this.opening };
        this.read += this.opening.length;
        while (this.read < this.limit) {
          this.read += this.chunk.length;
          yield { type: 'text', text: this.chunk };
        }
        yield { type: 'done', finishReason: 'stop' };
      }
    }

    it('stops reading at MAX_ANSWER_CHARS, hidden characters counted, and ends the reply with the cap reason', async () => {
      const model = new EndlessModel('Writing:\n```tool_call\n{"name": "write_file", "arguments": {"path": "big.txt", "content": "', 'A'.repeat(64 * 1024));
      const events: ProviderEvent[] = [];
      for await (const event of new PromptToolCallingProvider(model).stream({ messages: [{ role: 'user', content: 'go' }], tools: [{ type: 'function', function: { name: 'write_file', description: 'w', parameters: { type: 'object', properties: {} } } }] })) events.push(event);
      assert.ok(model.read <= MAX_ANSWER_CHARS + 64 * 1024 + 100, `read ${model.read} characters`);
      assert.deepEqual(events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text).join(''), 'Writing:\n');
      assert.equal(events.some((e) => e.type === 'tool_call'), false, 'the half block is no call');
      assert.deepEqual(events.at(-1), { type: 'done', finishReason: ANSWER_CAP_REASON });
    });

    it('through the Agent and a server streaming 52 MB of one block: the notice, no file, the server not read further', async () => {
      const server = await ModelServer.start();
      const workspace = await TempWorkspace.create();
      try {
        const chunk = `\`\`\`tool_call\n{"name": "write_file", "arguments": {"path": "big.txt", "content": "${'A'.repeat(64 * 1024)}`;
        server.enqueue({ repeat: { chunk, times: 800 } });
        const agent = new Agent(new PromptToolCallingProvider(new OpenAIProvider({ apiKey: 'k', baseURL: server.openaiBaseUrl, model: 'm', maxRetries: 0 })), {
          toolRegistry: createDefaultToolRegistry(contextFor(workspace)),
          workspaceRoot: workspace.root,
        });
        const events = await drain(agent.streamChat('Write a big file'));
        const done = events.at(-1) as Extract<AgentEvent, { type: 'done' }>;
        assert.equal(done.truncated, true);
        assert.ok(done.text.endsWith(ANSWER_CUT_NOTICE.trim()));
        assert.equal(events.filter((e) => e.type === 'tool_call_start').length, 0);
        assert.equal(await workspace.exists('big.txt'), false, 'nothing was written');
        const kept = agent.history.at(-1)!;
        assert.equal(kept.role, 'assistant');
        assert.equal(kept.content, ANSWER_CUT_NOTICE, 'the hidden block is not kept');
        for (let waited = 0; !server.requests[0].clientClosed; waited += 10) {
          assert.ok(waited < 10_000, 'the client stopped reading');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        assert.ok(server.requests[0].bytesWritten < 25 * 1024 * 1024, `the server wrote ${server.requests[0].bytesWritten} of ${800 * chunk.length} bytes`);
      } finally {
        server.close();
        await workspace.dispose();
      }
    });
  });

  describe('parsing is linear in the answer: every character is looked at once', () => {
    const shapes: Record<string, string> = {
      'one unclosed tool_call block': `\`\`\`tool_call\n{"name": "write_file", "arguments": {"content": "${'x'.repeat(500_000)}`,
      'an unclosed block of short lines': `\`\`\`tool_call\n${'{"k": 1}\n'.repeat(55_000)}`,
      'a ````markdown fence never closed': `\`\`\`\`markdown\n${'```tool_call\n{}\n```\n'.repeat(25_000)}`,
      'fences and calls, alternating': `${'Text.\n````md\n```tool_call\n{}\n```\n````\n```tool_call\n{"name": "read_file", "arguments": {}}\n```\n'.repeat(6000)}`,
      'one line of backticks': '`'.repeat(500_000),
      'a fence whose info string never ends': `\`\`\`${'j'.repeat(500_000)}`,
      'a line of 500,000 spaces, then a fence': `${' '.repeat(500_000)}\`\`\`tool_call\n`,
      'a list marker line of dashes': '- '.repeat(250_000),
    };
    for (const [name, answer] of Object.entries(shapes)) {
      it(`${name}, in 16-character pieces`, () => {
        const parser = new PromptToolCallParser(TOOLS, 'id_');
        for (let i = 0; i < answer.length; i += 16) parser.push(answer.slice(i, i + 16));
        parser.finish();
        assert.equal(parser.scannedChars, answer.length);
      });
    }
  });
});
