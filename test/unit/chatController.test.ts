import * as assert from 'node:assert/strict';
import { Agent } from '../../src/agent/agent';
import { ApprovalBroker } from '../../src/chat/approvals';
import { ChatController, ChatSetupError, type ChatEnvironment } from '../../src/chat/chatController';
import { forStorage, newConversation, type StoredConversation } from '../../src/chat/conversation';
import { OpenAIProvider } from '../../src/providers/openai';
import type { HostMessage, TranscriptItem } from '../../src/protocol';
import { parseWebviewMessage } from '../../src/protocol';
import { ToolManager } from '../../src/tools/toolManager';
import { ModelServer } from '../support/modelServer';
import { scriptedChatEnvironment } from '../support/scriptedChat';
import { contextFor, TempWorkspace } from '../support/workspace';

describe('ChatController (the chat without VS Code)', () => {
  let server: ModelServer;
  let ws: TempWorkspace;
  before(async () => {
    server = await ModelServer.start();
    ws = await TempWorkspace.create({ 'README.md': '# Demo\n' });
  });
  after(async () => {
    await server.close();
    await ws.dispose();
  });

  let saved: StoredConversation[];
  let messages: HostMessage[];
  let controller: ChatController;
  let manager: ToolManager;
  let setupError: Error | undefined;

  beforeEach(() => {
    server.reset();
    saved = [];
    messages = [];
    setupError = undefined;
    const ctx = contextFor(ws);
    ctx.confirm = (request) => controller.confirm(request);
    manager = new ToolManager({ context: ctx });
    manager.applyConfig([{ name: 'calculator' }, { name: 'read_file' }, { name: 'run_bash' }]);
    manager.enable('run_bash');
    const env = scriptedChatEnvironment({
      registry: manager.registry,
      baseURL: server.openaiBaseUrl,
      setupError: () => setupError,
      extra: { save: (conversation) => saved.push(structuredClone(conversation)) },
    });
    controller = new ChatController(env);
    controller.onMessage((message) => messages.push(message));
  });

  const items = () => controller.state().items;
  const kinds = () => items().map((i) => (i.kind === 'tool' ? `tool:${i.name}:${i.status}` : i.kind));

  it('runs a turn: user item, streamed assistant text, tool cards, saved conversation', async () => {
    server.enqueue({ text: 'Checking. ', toolCalls: [{ name: 'calculator', arguments: { expression: '2*21' } }] }, { chunks: ['The answer', ' is 42.'] });
    const reply = await controller.send('What is 2*21?');
    assert.equal(reply, 'Checking.\n\nThe answer is 42.');
    assert.deepEqual(kinds(), ['user', 'assistant', 'tool:calculator:ok', 'assistant']);
    const card = items()[2] as Extract<TranscriptItem, { kind: 'tool' }>;
    assert.equal(card.result, '42');
    assert.equal(card.arguments, '{"expression":"2*21"}');
    const streamed = messages.filter((m) => m.type === 'text').map((m) => (m as { text: string }).text);
    assert.ok(streamed.length >= 3, 'text arrives in deltas');
    assert.ok(messages.some((m) => m.type === 'busy' && m.busy) && messages.at(-1)?.type === 'busy');
    assert.equal(saved.at(-1)?.title, 'What is 2*21?');
    assert.deepEqual(saved.at(-1)?.messages.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
    assert.match(controller.sessionContext, /What is 2\*21\?/);
  });

  it('refuses a second message while a reply is running', async () => {
    server.enqueue({ chunks: ['a', 'b', 'c'], chunkDelayMs: 50 });
    const first = controller.send('one');
    await assert.rejects(controller.send('two'), /still being written/);
    await first;
  });

  it('asks for approval in the running card and runs only when allowed', async () => {
    server.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'echo hi' } }] }, { text: 'ran it' });
    const turn = controller.send('run it');
    const asked = await waitFor(() => items().find((i) => i.kind === 'tool' && i.status === 'awaiting_approval'));
    assert.equal(asked.kind === 'tool' && asked.approval?.summary, 'Run `echo hi`');
    controller.decide((asked as Extract<TranscriptItem, { kind: 'tool' }>).approval!.requestId, 'allow');
    await turn;
    const card = items().find((i) => i.kind === 'tool') as Extract<TranscriptItem, { kind: 'tool' }>;
    assert.equal(card.status, 'ok');
    assert.match(card.result ?? '', /Exit code: 0[\s\S]*hi/);
  });

  it('marks a denied call and remembers "allow for this chat" until the chat changes', async () => {
    server.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'echo one' } }] }, { text: 'ok' });
    let turn = controller.send('first');
    let asked = await waitFor(() => items().find((i) => i.kind === 'tool' && i.status === 'awaiting_approval'));
    controller.decide((asked as Extract<TranscriptItem, { kind: 'tool' }>).approval!.requestId, 'deny');
    await turn;
    assert.equal((items().find((i) => i.kind === 'tool') as { status: string }).status, 'denied');

    server.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'echo two' } }] }, { text: 'ok' });
    turn = controller.send('second');
    asked = await waitFor(() => items().find((i) => i.kind === 'tool' && i.status === 'awaiting_approval'));
    controller.decide((asked as Extract<TranscriptItem, { kind: 'tool' }>).approval!.requestId, 'allowForChat');
    await turn;

    server.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'echo two' } }] }, { text: 'ok' });
    await controller.send('third');
    const last = items().filter((i) => i.kind === 'tool').at(-1) as Extract<TranscriptItem, { kind: 'tool' }>;
    assert.equal(last.status, 'ok', 'no question for the same command');

    server.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'echo three' } }] }, { text: 'ok' });
    const other = controller.send('another command');
    const again = await waitFor(() => items().find((i) => i.kind === 'tool' && i.status === 'awaiting_approval'));
    assert.equal(again.kind === 'tool' && again.approval?.scope, 'Allow this exact command for this chat');
    controller.decide((again as Extract<TranscriptItem, { kind: 'tool' }>).approval!.requestId, 'allow');
    await other;

    controller.newConversation();
    server.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'echo four' } }] }, { text: 'ok' });
    const fresh = controller.send('new chat');
    await waitFor(() => items().find((i) => i.kind === 'tool' && i.status === 'awaiting_approval'));
    controller.stop();
    await fresh;
  });

  it('stop denies a waiting approval and ends the turn', async () => {
    server.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'echo never' } }] });
    const turn = controller.send('go');
    await waitFor(() => items().find((i) => i.kind === 'tool' && i.status === 'awaiting_approval'));
    controller.stop();
    await turn;
    assert.ok(items().some((i) => i.kind === 'notice' && i.text === 'Stopped.'));
    assert.equal(controller.busy, false);
  });

  it('shows a setup problem with its fix, and retry goes on without a second user message', async () => {
    setupError = new ChatSetupError('No OpenAI API key is set.', 'setApiKey');
    await assert.rejects(controller.send('hello'), /No OpenAI API key/);
    const error = items().at(-1) as Extract<TranscriptItem, { kind: 'error' }>;
    assert.deepEqual([error.kind, error.actions, error.retryable], ['error', ['connectModel', 'setApiKey'], true]);
    setupError = undefined;
    server.enqueue({ text: 'Hello!' });
    assert.equal(await controller.retry(), 'Hello!');
    assert.deepEqual(kinds(), ['user', 'assistant']);
    const sent = (server.requests[0].body.messages as { role: string }[]).filter((m) => m.role === 'user');
    assert.equal(sent.length, 1);
  });

  it('turns a provider failure into an error item with the right action', async () => {
    server.enqueue({ fault: 'http', status: 401, errorMessage: 'bad key' });
    await assert.rejects(controller.send('hi'), /rejected the API key/);
    const error = items().at(-1) as Extract<TranscriptItem, { kind: 'error' }>;
    assert.equal(error.action, 'setApiKey');
  });

  it('restores a stored conversation and goes on from it', async () => {
    const stored = newConversation();
    stored.messages = [{ role: 'user', content: 'earlier' }, { role: 'assistant', content: 'earlier answer' }];
    stored.items = [{ kind: 'user', id: `item-${stored.id}-1`, text: 'earlier' }, { kind: 'assistant', id: `item-${stored.id}-2`, text: 'earlier answer' }];
    controller.load(stored);
    server.enqueue({ text: 'later answer' });
    await controller.send('later');
    assert.deepEqual((server.requests[0].body.messages as { content: string }[]).map((m) => m.content), ['Be brief.', 'earlier', 'earlier answer', 'later']);
    assert.equal(new Set(items().map((i) => i.id)).size, items().length, 'item ids stay unique');
  });

  it('stores conversations without running cards and with long results cut', () => {
    const conversation = newConversation();
    conversation.items = [
      { kind: 'tool', id: 't1', name: 'run_bash', arguments: '{}', status: 'running' },
      { kind: 'assistant', id: 'a1', text: 'partial', streaming: true },
    ];
    conversation.messages = [{ role: 'tool', toolCallId: 'x', name: 'read_file', content: 'y'.repeat(50_000) }];
    const stored = forStorage(conversation);
    assert.equal((stored.items[0] as { status: string }).status, 'cancelled');
    assert.equal((stored.items[1] as { streaming?: boolean }).streaming, false);
    assert.ok((stored.messages[0] as { content: string }).content.length < 21_000);
  });
});

describe('ApprovalBroker', () => {
  it('resolves false when the signal aborts', async () => {
    const broker = new ApprovalBroker();
    const controller = new AbortController();
    const answer = broker.request({ tool: 'remove', reason: 'destructive', summary: 'Delete x', args: {}, signal: controller.signal }, () => undefined);
    controller.abort();
    assert.equal(await answer, false);
    assert.deepEqual(broker.waiting, []);
  });

  it('ignores a decision for an unknown request', () => {
    assert.equal(new ApprovalBroker().decide('nope', 'allow'), false);
  });
});

describe('webview protocol validation', () => {
  it('accepts well-formed messages and drops everything else', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'send', id: 's1', text: 'hi' }), { type: 'send', id: 's1', text: 'hi' });
    assert.deepEqual(parseWebviewMessage({ type: 'approve', requestId: 'a', decision: 'allowForChat' }), { type: 'approve', requestId: 'a', decision: 'allowForChat' });
    assert.deepEqual(parseWebviewMessage({ type: 'stop', extra: 1 }), { type: 'stop' });
    for (const bad of [null, 'send', {}, { type: 'send', id: 's', text: '   ' }, { type: 'send', id: 5, text: 'x' }, { type: 'approve', requestId: 'a', decision: 'maybe' },
      { type: 'command', command: 'rm -rf' }, { type: 'send', id: 's', text: 'x'.repeat(200_000) }, { type: 'eval', code: 'x' }]) {
      assert.equal(parseWebviewMessage(bad), undefined, JSON.stringify(bad)?.slice(0, 60));
    }
  });
});

async function waitFor<T>(check: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('markdown nesting cap (the panel’s renderer)', () => {
  it('escapes quote and list markers past the cap, so nothing after them is dropped', async () => {
    const { flattenDeepNesting } = await import('../../src/webview/markdown');
    const MarkdownIt = (await import('markdown-it')).default;
    const md = new MarkdownIt();
    for (const deep of [`${'> '.repeat(10_000)}q`, `${'>'.repeat(10_000)}q`, `${'- '.repeat(10_000)}q`, `${'1. '.repeat(5_000)}q`, `${'> - '.repeat(3_000)}q`]) {
      const text = `${deep}\n\nAFTER-THE-DEEP-PART`;
      assert.match(md.render(flattenDeepNesting(text)), /AFTER-THE-DEEP-PART/, deep.slice(0, 8));
    }
    const indented = Array.from({ length: 200 }, (_, i) => `${' '.repeat(i * 2)}- level ${i}`).join('\n') + '\n\nAFTER';
    assert.doesNotMatch(md.render(indented), /AFTER/, 'markdown-it alone drops it (this is what the cap is for)');
    assert.match(md.render(flattenDeepNesting(indented)), /AFTER/);
    const normal = '> quote\n\n- a\n  - b\n    1. c\n\n```\n> > > > > > > > > > > > > > > > > > > > > > > > in code\n```';
    assert.equal(flattenDeepNesting(normal), normal, 'ordinary nesting and fenced code are untouched');
  });
});

describe('ChatController: context window in sight', () => {
  let server: ModelServer;
  before(async () => {
    server = await ModelServer.start();
  });
  after(() => server.close());

  function controllerFor(contextTokens: number, saved: StoredConversation[] = []) {
    const manager = new ToolManager({ context: { systemPrompt: '', sessionContext: '', sessionContextFilePath: 'x.md', workspaceRoot: process.cwd() } });
    const env: ChatEnvironment = {
      registry: manager.registry,
      setup: async () => ({ provider: new OpenAIProvider({ apiKey: 'k', baseURL: server.openaiBaseUrl, model: 'm', maxRetries: 0, contextTokens }), systemPrompt: 'Be brief.', maxToolRounds: 5 }),
      loadAgent: async () => Agent,
      save: (conversation) => saved.push(structuredClone(conversation)),
      activeTools: () => [],
      describeModel: () => ({ provider: 'openai', model: 'm' }),
    };
    const controller = new ChatController(env);
    const messages: HostMessage[] = [];
    controller.onMessage((message) => messages.push(message));
    return { controller, messages };
  }

  it('sends the header its context use and keeps it with the conversation', async () => {
    server.reset();
    const saved: StoredConversation[] = [];
    const { controller, messages } = controllerFor(50_000, saved);
    server.enqueue({ text: 'Hi.' });
    await controller.send('hello');
    const context = messages.filter((m) => m.type === 'context').map((m) => (m as Extract<HostMessage, { type: 'context' }>).context);
    // The streamed OpenAI format reports no usage, so the estimate is what the header shows.
    assert.deepEqual(context.map((c) => c.measured), ['estimate']);
    assert.equal(context[0].contextTokens, 50_000);
    assert.ok(context[0].tokens > 5 && context[0].tokens < 50);
    assert.deepEqual(controller.state().context, context[0]);
    assert.deepEqual(saved.at(-1)?.context, context[0]);
  });

  it('says once per turn what was left out to fit, and starts a new chat carrying a summary', async () => {
    server.reset();
    const { controller } = controllerFor(3000);
    for (let i = 0; i < 6; i++) {
      server.enqueue({ text: `Answer ${i}: ${'words '.repeat(300)}` });
      await controller.send(`Question ${i}: ${'why '.repeat(200)}`);
    }
    const notices = controller.state().items.filter((i) => i.kind === 'notice').map((i) => (i as { text: string }).text);
    assert.ok(notices.length >= 1);
    assert.ok(notices.length <= 6, 'at most one a turn');
    assert.match(notices[0], /To fit the model's context window \(3,000 tokens\), \d+ older messages? (was|were) left out/);
    const sent = server.requests.at(-1)!.body.messages as { content: string }[];
    assert.match(sent[1].content, /left out to fit the model's context window/);

    controller.newConversationWithSummary();
    const state = controller.state();
    assert.match(state.title, /\(continued\)$/);
    assert.deepEqual(state.items.map((i) => i.kind), ['notice']);
    server.enqueue({ text: 'Continuing.' });
    await controller.send('go on');
    const first = (server.requests.at(-1)!.body.messages as { role: string; content: string }[])[1];
    assert.equal(first.role, 'user');
    assert.match(first.content, /^Here is a summary of our earlier chat "Question 0: why why/);
    assert.match(first.content, /\*\*User:\*\* Question 5/);
  });
});
