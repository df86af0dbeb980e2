import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';
import { ModelServer } from '../support/modelServer';
import { activateToolbelt, setChatSettings, setRegistry, waitFor } from './helpers';

function chatBundleLoaded(): boolean {
  return Object.keys(require.cache).some((file) => file.endsWith(`${path.sep}dist${path.sep}chat.js`));
}

describe('Chat through the API in a real extension host', () => {
  let api: ToolbeltApi;
  let model: ModelServer;

  before(async () => {
    api = await activateToolbelt();
    model = await ModelServer.start();
    await setChatSettings({ provider: 'openai', baseUrl: model.openaiBaseUrl, model: 'scripted-model' });
    await setRegistry([{ name: 'calculator' }, { name: 'read_file' }, { name: 'save_session_context' }]);
    await waitFor(() => api.tools.list().length === 3, 'three tools');
  });

  after(async () => {
    await setChatSettings({ provider: undefined, baseUrl: undefined, model: undefined });
    await setRegistry(undefined);
    await model.close();
  });

  beforeEach(() => model.reset());

  it('does not load the chat bundle (SDKs) at activation', () => {
    assert.equal(chatBundleLoaded(), false);
  });

  it('runs a text-only model through Ollama\'s own API, calling a tool from its answer, and fills the context meter', async () => {
    model.setTextOnly('text-only').setContextLength('text-only', 16_384);
    await setChatSettings({ provider: 'ollama', baseUrl: model.ollamaBaseUrl, model: 'text-only' });
    try {
      model.enqueue(
        { chunks: ['Let me work it out.\n```tool_call\n{"name": "calculator", ', '"arguments": {"expression": "6*7"}}\n```\n'] },
        { text: 'It is 42.' },
      );
      const reply = await api.chat.send('What is 6*7?');
      assert.equal(reply, 'Let me work it out.\n\nIt is 42.');
      const chats = model.requests.filter((r) => r.path === '/api/chat');
      assert.equal(chats.length, 2);
      assert.equal(chats[0].body.tools, undefined, 'no native tools for a model without them');
      assert.match((chats[0].body.messages as { content: string }[])[0].content, /# Tools[\s\S]*### calculator/);
      assert.match((chats[1].body.messages as { role: string; content: string }[]).at(-1)!.content, /^Result of calculator \([^)]+\):\n42$/);
      assert.ok((chats[0].body.options as { num_ctx: number }).num_ctx <= 16_384);
      const meter = api.chat.context();
      assert.equal(meter?.contextTokens, 16_384, "the window Ollama's /api/show reported");
      assert.equal(meter?.measured, 'reported', "Ollama's own count of the last request");
    } finally {
      await setChatSettings({ provider: 'openai', baseUrl: model.openaiBaseUrl, model: 'scripted-model' });
      // The next tests read the conversation from its start.
      await vscode.commands.executeCommand('toolbelt.newChat');
    }
  });

  it('explains a missing API key instead of failing obscurely', async () => {
    await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', '');
    // OpenAI's own service needs a key; a custom OpenAI-compatible server is asked without one.
    await setChatSettings({ baseUrl: '' });
    try {
      await assert.rejects(api.chat.send('hello'), /No OpenAI API key is set\. Use "Toolbelt: Set API Key"/);
      assert.equal(model.requests.length, 0);
    } finally {
      await setChatSettings({ baseUrl: model.openaiBaseUrl });
    }
  });

  it('sends a key only to the endpoint it was set for: a keyless local server works, an OpenAI key never reaches it', async () => {
    // A fresh chat: a saved key retries a failed message by itself, and the last test left one.
    await vscode.commands.executeCommand('toolbelt.newChat');
    // A key for OpenAI's own service (set while the settings name it), none for the local server.
    await setChatSettings({ baseUrl: '' });
    await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', 'sk-openai-own');
    await setChatSettings({ baseUrl: model.openaiBaseUrl });
    await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', '');
    try {
      model.enqueue({ text: 'Keyless.' });
      assert.equal(await api.chat.send('Hello, local server'), 'Keyless.');
      assert.equal(model.requests[0].headers.authorization, 'Bearer not-needed', "the server at the base URL got no key (the SDK's placeholder), not OpenAI's");
      await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', 'sk-local-only');
      model.reset();
      model.enqueue({ text: 'Keyed.' });
      assert.equal(await api.chat.send('And with its own key?'), 'Keyed.');
      assert.equal(model.requests[0].headers.authorization, 'Bearer sk-local-only');
    } finally {
      await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', '');
      await setChatSettings({ baseUrl: '' });
      await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', '');
      await setChatSettings({ baseUrl: model.openaiBaseUrl });
    }
  });

  it('runs one turn with the active tools and resolves with the reply', async () => {
    await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', 'sk-integration');
    model.enqueue(
      { toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }, { name: 'read_file', arguments: { path: 'src/hello.ts' } }] },
      { text: 'It is 42, and hello.ts greets by name.' },
    );
    const reply = await api.chat.send('What is 6*7 and what does src/hello.ts do?');
    assert.equal(reply, 'It is 42, and hello.ts greets by name.');
    assert.equal(chatBundleLoaded(), true, 'the bundle loads on the first turn');
    const first = model.requests[0];
    assert.equal(first.headers.authorization, 'Bearer sk-integration');
    assert.deepEqual((first.body.tools as { function: { name: string } }[]).map((t) => t.function.name), ['calculator', 'read_file', 'save_session_context']);
    const results = (model.requests[1].body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool').map((m) => m.content);
    assert.equal(results[0], '42');
    assert.match(results[1], /export function hello/);
  });

  it('offers the model only enabled tools', async () => {
    await api.tools.disable('read_file');
    model.enqueue({ text: 'ok' });
    await api.chat.send('Which tools do you have?');
    assert.deepEqual((model.requests[0].body.tools as { function: { name: string } }[]).map((t) => t.function.name), ['calculator', 'save_session_context']);
    await api.tools.enable('read_file');
  });

  it('saves the session context into the workspace through the tool', async () => {
    model.enqueue({ toolCalls: [{ name: 'save_session_context', arguments: { reason: 'integration checkpoint' } }] }, { text: 'Saved.' });
    await api.chat.send('Save where we are.');
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const saved = await fs.readFile(path.join(folder, '.toolbelt', 'session-context.md'), 'utf8');
    assert.match(saved, /Reason: integration checkpoint/);
    assert.match(saved, /What is 6\*7 and what does src\/hello\.ts do\?/);
  });

  it('rejects with a readable error when the provider fails, and goes on afterwards', async () => {
    model.enqueue({ fault: 'http', status: 429, retryAfter: '120' });
    await assert.rejects(api.chat.send('Are you there?'), /rate limiting requests \(HTTP 429\).*Try again in 2 min/);
    model.enqueue({ text: 'Back again.' });
    assert.equal(await api.chat.send('And now?'), 'Back again.');
  });

  it('talks to Gemini through its native API with Gemini-format tools', async () => {
    await setChatSettings({ provider: 'gemini', baseUrl: model.geminiBaseUrl, model: 'scripted-gemini' });
    await vscode.commands.executeCommand('toolbelt.setApiKey', 'gemini', 'gm-integration');
    model.enqueue({ toolCalls: [{ name: 'calculator', arguments: { expression: '2+2' } }] }, { text: 'Four.' });
    assert.equal(await api.chat.send('2+2 via Gemini?'), 'Four.');
    const first = model.requests[0];
    assert.equal(first.format, 'gemini');
    assert.equal(first.headers['x-goog-api-key'], 'gm-integration');
    const declarations = (first.body.tools as { functionDeclarations: { name: string }[] }[])[0].functionDeclarations.map((d) => d.name);
    assert.deepEqual(declarations, ['calculator', 'read_file', 'save_session_context']);
    await setChatSettings({ provider: 'openai', baseUrl: model.openaiBaseUrl, model: 'scripted-model' });
  });

  it('opens the chat view and starts a new chat through the commands', async () => {
    await vscode.commands.executeCommand('toolbelt.openChat');
    await vscode.commands.executeCommand('toolbelt.newChat');
    model.enqueue({ text: 'Fresh start.' });
    assert.equal(await api.chat.send('Hello again'), 'Fresh start.');
    const sent = model.requests[0].body.messages as { role: string }[];
    assert.deepEqual(sent.map((m) => m.role), ['system', 'user'], 'the new chat carries no earlier messages');
  });
});
