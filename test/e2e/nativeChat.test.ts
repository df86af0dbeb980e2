import * as assert from 'node:assert/strict';
import { ModelServer } from '../support/modelServer';
import { Workbench } from './workbench';

/**
 * A workbench whose Toolbelt talks to the scripted model, with calculator, read_file and
 * write_file registered, and VS Code's own chat left on: it is what these suites drive.
 */
async function startWithToolbeltModel(): Promise<{ model: ModelServer; workbench: Workbench }> {
  const model = await ModelServer.start();
  const workbench = await Workbench.start({
    workspaceSettings: {
      'toolbelt.tools.registry': [{ name: 'calculator' }, { name: 'read_file' }, { name: 'write_file' }],
      'toolbelt.provider': 'openai',
      'toolbelt.baseUrl': model.openaiBaseUrl,
      'toolbelt.model': 'scripted-model',
    },
    userSettings: { 'chat.disableAIFeatures': false },
    env: { OPENAI_API_KEY: 'sk-e2e' },
  }).catch(async (error: unknown) => {
    await model.close();
    throw error;
  });
  // Showing the Tools view loads Toolbelt, which lists its model for the Chat view's picker.
  await workbench.openToolbelt().catch(async (error: unknown) => {
    await workbench.close();
    await model.close();
    throw error;
  });
  return { model, workbench };
}

describe('@toolbelt in VS Code\'s Chat view (browser)', function () {
  this.timeout(240_000);
  let model: ModelServer;
  let workbench: Workbench;

  before(async () => {
    ({ model, workbench } = await startWithToolbeltModel());
  });

  after(async () => {
    await workbench?.close();
    await model?.close();
  });

  it('answers "@toolbelt what is 6*7?" from the configured model after a calculator call shown in the chat', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] }, { chunks: ['6 × 7 is ', '**42**.'] });
    await workbench.runCommand('Chat: Open Chat');
    await sendChat(workbench, '@toolbelt what is 6*7?');
    const response = lastResponse(workbench);
    await response.locator('strong', { hasText: '42' }).waitFor({ timeout: 60_000 });
    const text = (await response.textContent()) ?? '';
    assert.match(text, /6 × 7 is 42/);
    assert.equal(model.requests.length, 2);
    const tools = (model.requests[0].body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    assert.deepEqual(tools, ['calculator', 'read_file', 'write_file']);
    const sent = model.requests[1].body.messages as { role: string; content: string }[];
    assert.equal(sent.find((m) => m.role === 'tool')?.content, '42');
    await workbench.screenshot('native-chat-toolbelt-participant');
  });

  it('asks with VS Code\'s inline card before @toolbelt writes .vscode/settings.json, and Skip leaves the file as it was', async () => {
    const page = workbench.page;
    const before = await workbench.readWorkspaceFile('.vscode/settings.json');
    const asked = model.requests.length;
    model.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: '.vscode/settings.json', content: '{ "toolbelt.tools.registry": [] }\n' } }] },
      { text: 'Understood: I left your settings unchanged.' },
    );
    await sendChat(workbench, '@toolbelt clear the tool registry in .vscode/settings.json');
    const card = page.locator('.chat-confirmation-widget-container', { hasText: '.vscode/settings.json' }).last();
    await card.waitFor({ timeout: 60_000 });
    const cardText = (await card.textContent()) ?? '';
    assert.match(cardText, /change a protected path/);
    assert.match(cardText, /write_file/);
    await workbench.screenshot('native-chat-write-confirmation');
    // The card's buttons sit under the message (the only "Skip" on the page).
    await page.getByText('Skip', { exact: true }).last().click();
    await lastResponse(workbench).getByText('I left your settings unchanged.').waitFor({ timeout: 60_000 });
    assert.equal(await workbench.readWorkspaceFile('.vscode/settings.json'), before, 'the settings file is unchanged');
    assert.equal(model.requests.length, asked + 2, 'the chat went on after Skip');
    const sent = model.requests[asked + 1].body.messages as { role: string; content: string }[];
    assert.match(sent.filter((m) => m.role === 'tool').at(-1)?.content ?? '', /skip/i, 'the model was told the call was skipped');
    await workbench.screenshot('native-chat-write-skipped');
  });
});

/** Types `text` into the Chat view's input and sends it. */
async function sendChat(workbench: Workbench, text: string): Promise<void> {
  const page = workbench.page;
  const editor = page.locator('.interactive-input-part .monaco-editor').last();
  await editor.waitFor({ timeout: 60_000 });
  const box = (await editor.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  // @toolbelt is sticky: replace what the input keeps from the last request.
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
  await page.locator('.interactive-input-part', { hasText: text.replace(/^@\S+\s*/, '') }).last().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
}

function lastResponse(workbench: Workbench) {
  return workbench.page.locator('.interactive-item-container.interactive-response').last();
}

describe('Copilot\'s Agent mode on Toolbelt\'s model with Toolbelt\'s tools (browser)', function () {
  this.timeout(300_000);
  let model: ModelServer;
  let workbench: Workbench;

  before(async () => {
    ({ model, workbench } = await startWithToolbeltModel());
    // write_file is registered but switched off: it must not reach the agent's tool list.
    await workbench.checkbox('write_file').click();
    await workbench.waitForActiveSummary('2 of 3 enabled');
  });

  after(async () => {
    await workbench?.close();
    await model?.close();
  });

  it('calls toolbelt_calculator, shows the scripted answer, and sends the model only the active Toolbelt tools', async () => {
    const page = workbench.page;
    // The agent's turn: call the calculator when offered, answer once its result is back.
    model.setFallback((request) => {
      const messages = (request.body.messages ?? []) as { role: string; content: unknown }[];
      const tools = toolNames(request);
      if (messages.some((m) => m.role === 'tool')) return { chunks: ['The calculator says ', '**42**.'] };
      if (tools.includes('toolbelt_calculator')) return { toolCalls: [{ name: 'toolbelt_calculator', arguments: { expression: '6*7' } }] };
      return { text: 'Scripted reply.' };
    });
    // Enables the built-in Copilot Chat without a sign-in (NATIVE-CHAT.md).
    await workbench.runCommand('Chat: Manage Language Models');
    await page.getByText('scripted-model (Toolbelt)', { exact: true }).first().waitFor({ timeout: 60_000 });
    // Copilot Chat is enabled now; a request sent before its activation ends asks for a sign-in.
    await page.locator('.statusbar', { hasText: 'Activating Extensions' }).waitFor({ state: 'hidden', timeout: 90_000 });
    await workbench.screenshot('native-chat-agent-manage-models');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await workbench.runCommand('Chat: Open Chat');
    const input = page.locator('.interactive-input-part').last();
    await input.getByText('Agent', { exact: true }).first().waitFor({ timeout: 60_000 });
    await input.getByText(/scripted-model/).first().waitFor({ timeout: 60_000 });
    const response = lastResponse(workbench);
    const answer = response.locator('strong', { hasText: '42' });
    const signIn = page.getByText('Sign in to use GitHub Copilot');
    for (let attempt = 1; ; attempt++) {
      await sendChat(workbench, 'what is 6*7?');
      const outcome = await Promise.race([
        answer.waitFor({ timeout: 90_000 }).then(() => 'answered'),
        signIn.waitFor({ timeout: 90_000 }).then(() => 'sign-in'),
      ]).catch((error: Error) => {
        const seen = model.requests.map((r) => `${r.path}: ${toolNames(r).length} tools, ${(r.body.messages as unknown[] | undefined)?.length ?? 0} messages`);
        throw new Error(`${error.message}\nModel requests: ${seen.join('; ') || 'none'}`);
      });
      if (outcome === 'answered') break;
      // Copilot Chat may still be starting after Manage Language Models: its setup then asks for a
      // sign-in. Dismiss it and ask again once Copilot Chat has taken over.
      await workbench.screenshot(`native-chat-agent-signin-${attempt}`);
      console.log(`      (attempt ${attempt}: Copilot asked for a sign-in; dismissed, asking again)`);
      assert.ok(attempt < 3, 'Copilot Chat kept asking for a sign-in');
      await page.keyboard.press('Escape');
      await signIn.waitFor({ state: 'hidden', timeout: 10_000 });
      await page.waitForTimeout(10_000);
    }
    await workbench.screenshot('native-chat-copilot-agent');
    assert.match((await response.textContent()) ?? '', /The calculator says 42/);
    const withTools = model.requests.filter((r) => toolNames(r).length > 0);
    assert.ok(withTools.length >= 2, `the agent called the model with tools (${model.requests.length} requests)`);
    const offered = toolNames(withTools[0]);
    assert.ok(offered.includes('toolbelt_calculator'), `toolbelt_calculator offered among ${offered.join(', ')}`);
    assert.ok(offered.includes('toolbelt_read_file'), 'toolbelt_read_file offered');
    for (const absent of ['toolbelt_write_file', 'toolbelt_run_bash', 'toolbelt_remove', 'toolbelt_list_dir']) {
      assert.ok(!offered.includes(absent), `${absent} is not offered`);
    }
    const answered = withTools.find((r) => ((r.body.messages ?? []) as { role: string }[]).some((m) => m.role === 'tool'));
    const toolMessage = ((answered?.body.messages ?? []) as { role: string; content: unknown }[]).filter((m) => m.role === 'tool').at(-1);
    assert.match(JSON.stringify(toolMessage?.content ?? ''), /42/, 'the calculator\'s result went back to the model');
  });
});

function toolNames(request: ModelServer['requests'][number]): string[] {
  return ((request.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
}
