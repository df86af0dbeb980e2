import * as assert from 'node:assert/strict';
import { existsSync, promises as fs, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';
import { ModelServer } from '../support/modelServer';
import { activateToolbelt, setChatSettings, setRegistry, waitFor } from './helpers';
import { ScriptedChatModel, toolbeltTurn } from './scriptedLmModel';

const BUILTINS = [
  'calculator', 'get_current_datetime', 'generate_uuid', 'read_file', 'list_dir', 'search_text', 'search_files',
  'write_file', 'mkdir', 'move', 'save_session_context', 'remove', 'run_bash',
];

interface Prepared {
  prepared: vscode.PreparedToolInvocation;
}

function root(): string {
  return vscode.workspace.workspaceFolders![0].uri.fsPath;
}

async function invoke(tool: string, input: object, token?: vscode.CancellationToken): Promise<string> {
  const result = await vscode.lm.invokeTool(`toolbelt_${tool}`, { input, toolInvocationToken: undefined }, token);
  return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
}

async function offered(): Promise<Record<string, boolean>> {
  // The command exists once the (deferred) registration ran.
  return (await vscode.commands.executeCommand<Record<string, boolean>>('toolbelt.lmTools.offered').then(undefined, () => undefined)) ?? {};
}

async function prepare(tool: string, input: object): Promise<vscode.PreparedToolInvocation> {
  return (await vscode.commands.executeCommand<Prepared>('toolbelt.lmTools.prepareInvocation', tool, input)).prepared;
}

function messageOf(prepared: vscode.PreparedToolInvocation): string {
  const message = prepared.confirmationMessages?.message;
  return typeof message === 'string' ? message : (message?.value ?? '');
}

/** Pids of `sleep <marker>` processes, from /proc. */
function sleepers(marker: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() === `sleep ${marker}`;
    } catch {
      return false;
    }
  });
}

describe('Toolbelt\'s tools in VS Code\'s own chat (vscode.lm)', () => {
  let api: ToolbeltApi;

  before(async () => {
    api = await activateToolbelt();
    await setRegistry([{ name: 'calculator' }, { name: 'read_file' }, { name: 'write_file' }, { name: 'remove' }, { name: 'run_bash' }]);
    await waitFor(() => api.tools.list().length === 5, 'five registered tools');
    for (const name of ['remove', 'run_bash']) assert.deepEqual(await api.tools.enable(name), { ok: true });
    await waitFor(async () => (await offered()).run_bash === true, 'run_bash offered');
  });

  after(async () => {
    // Switches are kept per workspace: put them back as registration sets them, for the suites after this one.
    for (const name of ['remove', 'run_bash']) await api.tools.disable(name);
    await setRegistry(undefined);
    await waitFor(() => api.tools.list().length === 0, 'the registry to empty');
    await fs.rm(path.join(root(), '.vscode', 'h5-protected.json'), { force: true });
    await fs.rm(path.join(root(), 'h5-files'), { recursive: true, force: true });
  });

  it('declares the 13 builtins as toolbelt_* tools that the agent can reference', () => {
    const ours = vscode.lm.tools.filter((t) => t.name.startsWith('toolbelt_'));
    assert.deepEqual(ours.map((t) => t.name).sort(), BUILTINS.map((n) => `toolbelt_${n}`).sort());
    const read = ours.find((t) => t.name === 'toolbelt_read_file')!;
    assert.match(read.description, /Read a text file in the workspace/);
    assert.deepEqual((read.inputSchema as { required: string[] }).required, ['path']);
  });

  it('offers exactly the active, enabled tools through their context keys', async () => {
    const values = await offered();
    assert.deepEqual(BUILTINS.filter((n) => values[n]), ['calculator', 'read_file', 'write_file', 'remove', 'run_bash']);
    assert.deepEqual(BUILTINS.filter((n) => values[n] === false).sort(), ['generate_uuid', 'get_current_datetime', 'list_dir', 'mkdir', 'move', 'save_session_context', 'search_files', 'search_text']);
  });

  it('runs toolbelt_calculator and toolbelt_read_file through the registry, and logs the calls', async () => {
    assert.equal(await invoke('calculator', { expression: '6*7' }), '42');
    const text = await invoke('read_file', { path: 'src/hello.ts' });
    const onDisk = await fs.readFile(path.join(root(), 'src', 'hello.ts'), 'utf8');
    assert.ok(text.includes(onDisk.split('\n')[0]), text);
    const log = await api.tools.log();
    const calc = log.filter((r) => r.tool === 'calculator').at(-1);
    assert.equal(calc?.status, 'ok');
    assert.deepEqual(calc?.args, { expression: '6*7' });
  });

  it('refuses a path outside the workspace with a text the model can act on', async () => {
    const text = await invoke('read_file', { path: '../../../../etc/hostname' });
    assert.match(text, /outside the workspace/i);
    assert.match(text, /failed|refused/);
  });

  it('does not run a tool the workspace does not register, and says how to activate it', async () => {
    const dir = path.join(root(), 'h5-files', 'made');
    const text = await invoke('mkdir', { path: 'h5-files/made' });
    assert.match(text, /not active in this workspace/);
    assert.match(text, /toolbelt\.tools\.registry/);
    assert.equal(existsSync(dir), false);
  });

  it('withdraws a tool switched off in the tree (context key and run), and offers it again when switched on', async () => {
    assert.deepEqual(await api.tools.disable('write_file'), { ok: true });
    await waitFor(async () => (await offered()).write_file === false, 'write_file withdrawn');
    const file = path.join(root(), 'h5-files', 'disabled.txt');
    const text = await invoke('write_file', { path: 'h5-files/disabled.txt', content: 'x' });
    assert.match(text, /switched off/);
    assert.equal(existsSync(file), false);
    assert.equal((await api.tools.log()).filter((r) => r.tool === 'write_file').at(-1)?.status, 'refused');
    assert.deepEqual(await api.tools.enable('write_file'), { ok: true });
    await waitFor(async () => (await offered()).write_file === true, 'write_file offered again');
    assert.match(await invoke('write_file', { path: 'h5-files/enabled.txt', content: 'yes' }), /Wrote|wrote|Created|created/);
    assert.equal(await fs.readFile(path.join(root(), 'h5-files', 'enabled.txt'), 'utf8'), 'yes');
  });

  it('follows settings edits: a tool added is offered, one removed is withdrawn', async () => {
    await setRegistry([{ name: 'calculator' }, { name: 'read_file' }, { name: 'write_file' }, { name: 'remove' }, { name: 'run_bash' }, { name: 'list_dir' }]);
    await waitFor(async () => (await offered()).list_dir === true, 'list_dir offered', 1000);
    await setRegistry([{ name: 'read_file' }, { name: 'write_file' }, { name: 'remove' }, { name: 'run_bash' }, { name: 'list_dir' }]);
    await waitFor(async () => (await offered()).calculator === false, 'calculator withdrawn', 1000);
    assert.match(await invoke('calculator', { expression: '1+1' }), /not active/);
    await setRegistry([{ name: 'calculator' }, { name: 'read_file' }, { name: 'write_file' }, { name: 'remove' }, { name: 'run_bash' }]);
    await waitFor(async () => (await offered()).calculator === true && (await offered()).list_dir === false, 'registry restored');
  });

  it('asks before every remove, run_bash and protected write, naming exactly what happens; not before plain reads and writes', async () => {
    await fs.mkdir(path.join(root(), 'h5-files'), { recursive: true });
    await fs.writeFile(path.join(root(), 'h5-files', 'doomed.txt'), 'bye');
    const remove = await prepare('remove', { path: 'h5-files/doomed.txt' });
    assert.match(messageOf(remove), /Delete h5-files\/doomed\.txt/);
    const bash = await prepare('run_bash', { command: 'echo hello && ls' });
    assert.match(messageOf(bash), /echo hello && ls/);
    const protectedWrite = await prepare('write_file', { path: '.vscode/h5-protected.json', content: '{}' });
    assert.match(messageOf(protectedWrite), /\.vscode\/h5-protected\.json[\s\S]*protected path/);
    assert.equal((await prepare('write_file', { path: 'h5-files/plain.txt', content: 'x' })).confirmationMessages, undefined);
    assert.equal((await prepare('read_file', { path: 'src/hello.ts' })).confirmationMessages, undefined);
    assert.equal((await prepare('calculator', { expression: '1' })).confirmationMessages, undefined);
  });

  it('runs a protected write VS Code confirmed without asking a second time, recorded as the person\'s', async () => {
    // Outside a chat request VS Code confirms with a dialog, which this test host answers yes; a
    // second question from the registry (a modal message) would be refused here, so the file
    // exists only if the card's answer was used.
    const text = await invoke('write_file', { path: '.vscode/h5-protected.json', content: '{"h5": true}\n' });
    assert.equal(await fs.readFile(path.join(root(), '.vscode', 'h5-protected.json'), 'utf8'), '{"h5": true}\n', text);
    const record = (await api.tools.log()).filter((r) => r.tool === 'write_file').at(-1);
    assert.equal(record?.status, 'ok');
    assert.equal(record?.approvedBy, 'person');
  });

  it('stops run_bash and kills its process when the caller cancels', async () => {
    // A duration no other process uses marks the command in the process table (run_bash may run
    // it in a PID namespace, where `$!` is not the host's pid).
    const marker = `${30 + Math.floor(Math.random() * 1000) / 1000}`;
    const source = new vscode.CancellationTokenSource();
    const started = Date.now();
    const call = invoke('run_bash', { command: `sleep ${marker} & wait` }, source.token);
    await waitFor(() => sleepers(marker).length > 0, 'the sleep to start', 20_000);
    source.cancel();
    // VS Code ends a cancelled invokeTool with a CancellationError; the tool's own end is in the log.
    await assert.rejects(call, /Canceled/);
    const record = await waitFor(async () => (await api.tools.log()).filter((r) => r.tool === 'run_bash').at(-1), 'run_bash in the log', 15_000);
    assert.equal(record.status, 'cancelled');
    assert.equal(record.containment, 'sandboxed, network off', 'the call log says how the command ran');
    await waitFor(() => sleepers(marker).length === 0, 'the sleep to be killed', 5000);
    assert.ok(Date.now() - started < 20_000);
  });
});

describe('@toolbelt: Toolbelt\'s Agent on a vscode.lm model', () => {
  let api: ToolbeltApi;

  before(async () => {
    api = await activateToolbelt();
    await setRegistry([{ name: 'calculator' }, { name: 'read_file' }, { name: 'run_bash' }, { name: 'mkdir' }]);
    await waitFor(() => api.tools.list().length === 4, 'four registered tools');
    assert.deepEqual(await api.tools.enable('run_bash'), { ok: true });
    assert.deepEqual(await api.tools.disable('mkdir'), { ok: true });
  });

  after(async () => {
    await api.tools.disable('run_bash');
    await api.tools.enable('mkdir');
    await setRegistry(undefined);
    await waitFor(() => api.tools.list().length === 0, 'the registry to empty');
  });

  it('is contributed as @toolbelt', () => {
    const pkg = vscode.extensions.getExtension('toolbelt.toolbelt')!.packageJSON;
    assert.deepEqual(pkg.contributes.chatParticipants.map((p: { id: string; name: string }) => [p.id, p.name]), [['toolbelt.agent', 'toolbelt']]);
  });

  it('answers after a calculator call run through vscode.lm.invokeTool, streaming the text and showing the call', async () => {
    const model = new ScriptedChatModel([
      [new vscode.LanguageModelTextPart('Let me compute. '), new vscode.LanguageModelToolCallPart('call-1', 'calculator', { expression: '6*7' })],
      [new vscode.LanguageModelTextPart('It is '), new vscode.LanguageModelTextPart('42.')],
    ]);
    const before = (await api.tools.log()).length;
    const { result, out } = await toolbeltTurn(model, 'what is 6*7?');
    assert.deepEqual(result, {});
    assert.equal(out.markdown.join(''), 'Let me compute. It is 42.');
    assert.ok(out.progress.some((p) => p.includes('calculator')), out.progress.join('\n'));
    // The model was offered the active tools only, and got the calculator's answer back.
    assert.deepEqual(model.sent[0].options.tools?.map((t) => t.name), ['calculator', 'read_file', 'run_bash']);
    const answer = model.sent[1].messages.at(-1)!.content.find((p) => p instanceof vscode.LanguageModelToolResultPart) as vscode.LanguageModelToolResultPart;
    assert.equal(answer.callId, 'call-1');
    assert.equal((answer.content[0] as vscode.LanguageModelTextPart).value, '42');
    const calls = (await api.tools.log()).slice(before);
    assert.deepEqual(calls.map((r) => [r.tool, r.status]), [['calculator', 'ok']]);
  });

  it('tells the model how to enable a tool that is switched off, without running it', async () => {
    const model = new ScriptedChatModel([[new vscode.LanguageModelToolCallPart('call-2', 'mkdir', { path: 'h5-from-agent' })], [new vscode.LanguageModelTextPart('Okay.')]]);
    await toolbeltTurn(model, 'make a folder');
    const answer = model.sent[1].messages.at(-1)!.content[0] as vscode.LanguageModelToolResultPart;
    assert.match((answer.content[0] as vscode.LanguageModelTextPart).value, /switched off/);
    assert.equal(existsSync(path.join(root(), 'h5-from-agent')), false);
  });

  it('stops after toolbelt.chat.maxToolRounds rounds, as the panel does (the setting was ignored here)', async () => {
    await setChatSettings({ 'chat.maxToolRounds': 1 });
    try {
      const call = (id: string) => [new vscode.LanguageModelToolCallPart(id, 'calculator', { expression: '1+1' })];
      const model = new ScriptedChatModel([call('round-1'), call('round-2'), call('round-3'), [new vscode.LanguageModelTextPart('Never reached.')]]);
      const before = (await api.tools.log()).length;
      const { out } = await toolbeltTurn(model, 'keep adding');
      assert.match(out.markdown.join(''), /reached its limit of 1 rounds of tool calls/);
      assert.equal((await api.tools.log()).slice(before).length, 1, 'one round of calls ran, the next was not run');
    } finally {
      await setChatSettings({ 'chat.maxToolRounds': undefined });
    }
  });

  it('stops the turn and kills a running run_bash when the request is cancelled', async () => {
    const marker = `${40 + Math.floor(Math.random() * 1000) / 1000}`;
    const model = new ScriptedChatModel([[new vscode.LanguageModelToolCallPart('call-3', 'run_bash', { command: `sleep ${marker} & wait` })], [new vscode.LanguageModelTextPart('never')]]);
    const source = new vscode.CancellationTokenSource();
    const turn = toolbeltTurn(model, 'sleep', source.token);
    await waitFor(() => sleepers(marker).length > 0, 'the sleep to start', 20_000);
    source.cancel();
    const { out } = await turn;
    await waitFor(() => sleepers(marker).length === 0, 'the sleep to be killed', 5000);
    assert.equal(model.sent.length, 1, 'no second model request after Stop');
    assert.ok(!out.markdown.join('').includes('never'));
  });
});

describe('Toolbelt\'s model in VS Code (vendor toolbelt)', () => {
  let server: ModelServer;
  const OVERRIDE = 'The workspace calculator: exact arithmetic only.';

  before(async () => {
    const api = await activateToolbelt();
    await setRegistry([{ name: 'calculator', description: OVERRIDE }]);
    await waitFor(() => api.tools.list().length === 1, 'calculator registered');
    server = await ModelServer.start();
    await setChatSettings({ provider: 'openai', baseUrl: server.openaiBaseUrl, model: 'gpt-4o' });
    // A key belongs to the endpoint it is given for: this one to the scripted server.
    await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', 'sk-native-chat');
  });

  after(async () => {
    await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', '');
    await setChatSettings({ provider: undefined, baseUrl: undefined, model: undefined });
    await setRegistry(undefined);
    await server.close();
  });

  it('lists the configured model with honest limits and tool calling', async () => {
    const models = await waitFor(async () => {
      const found = await vscode.lm.selectChatModels({ vendor: 'toolbelt' });
      return found.length > 0 && found[0].id === 'openai/gpt-4o' ? found : undefined;
    }, 'the configured model in vscode.lm');
    assert.equal(models.length, 1);
    assert.equal(models[0].vendor, 'toolbelt');
    assert.ok(models[0].maxInputTokens > 100_000 && models[0].maxInputTokens < 128_000, String(models[0].maxInputTokens));
    assert.ok((await models[0].countTokens('twelve chars')) >= 3);
  });

  it('streams an answer from the configured server, tool calls and results included', async () => {
    const [model] = await vscode.lm.selectChatModels({ vendor: 'toolbelt' });
    server.enqueue({ toolCalls: [{ name: 'toolbelt_calculator', arguments: { expression: '6*7' }, id: 'call-a' }] }, { chunks: ['It is ', '42.'] });
    const tools: vscode.LanguageModelChatTool[] = [{ name: 'toolbelt_calculator', description: 'Evaluate arithmetic.', inputSchema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] } }];
    const first = await model.sendRequest([vscode.LanguageModelChatMessage.User('What is 6*7?')], { tools });
    const parts: unknown[] = [];
    for await (const part of first.stream) parts.push(part);
    const call = parts.find((p) => p instanceof vscode.LanguageModelToolCallPart) as vscode.LanguageModelToolCallPart;
    assert.ok(call, JSON.stringify(parts));
    assert.equal(call.name, 'toolbelt_calculator');
    assert.deepEqual(call.input, { expression: '6*7' });
    const sentTools = (server.requests[0].body.tools as { function: { name: string; description: string } }[]).map((t) => [t.function.name, t.function.description]);
    // The workspace's description override reaches the model through Toolbelt's own model.
    assert.deepEqual(sentTools, [['toolbelt_calculator', OVERRIDE]]);
    assert.equal(server.requests[0].headers.authorization, 'Bearer sk-native-chat');

    const second = await model.sendRequest([
      vscode.LanguageModelChatMessage.User('What is 6*7?'),
      vscode.LanguageModelChatMessage.Assistant([call]),
      vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart('42')])]),
    ], { tools });
    const chunks: string[] = [];
    for await (const text of second.text) chunks.push(text);
    assert.equal(chunks.join(''), 'It is 42.');
    assert.ok(chunks.length >= 2, 'streamed in more than one piece');
    const messages = server.requests[1].body.messages as { role: string; tool_call_id?: string; content?: string }[];
    assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'tool']);
    assert.equal(messages[2].tool_call_id, call.callId);
    assert.equal(messages[2].content, '42');
  });

  it('works with a keyless local server, as the panel does, and sends it no key', async () => {
    await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', '');
    try {
      const [model] = await vscode.lm.selectChatModels({ vendor: 'toolbelt' });
      server.enqueue({ text: 'No key needed.' });
      const before = server.requests.length;
      const response = await model.sendRequest([vscode.LanguageModelChatMessage.User('hello')], {});
      let text = '';
      for await (const chunk of response.text) text += chunk;
      assert.equal(text, 'No key needed.');
      assert.ok(!String(server.requests[before].headers.authorization ?? '').includes('sk-'), 'no stored key was sent');
    } finally {
      await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', 'sk-native-chat');
    }
  });

  it('is never the model of the panel on provider "vscode": the panel says which VS Code models there are instead of calling itself', async () => {
    const api = await activateToolbelt();
    const before = server.requests.length;
    await setChatSettings({ provider: 'vscode', model: 'toolbelt/openai/gpt-4o' });
    try {
      await waitFor(async () => (await vscode.lm.selectChatModels({ vendor: 'toolbelt' })).length === 0, 'Toolbelt\'s model withdrawn while the panel uses VS Code\'s');
      await assert.rejects(api.chat.send('hello'), /VS Code offers no chat model "toolbelt\/openai\/gpt-4o"/);
      await setChatSettings({ model: undefined });
      await assert.rejects(api.chat.send('hello'), /VS Code offers no chat model now: sign in to a model provider/);
      assert.equal(server.requests.length, before, 'no request reached the model server');
    } finally {
      await setChatSettings({ provider: 'openai', model: 'gpt-4o' });
    }
  });
});
