import * as assert from 'node:assert/strict';
import { ModelServer } from '../support/modelServer';
import { Workbench } from './workbench';

describe('@toolbelt in VS Code\'s Chat view (browser)', function () {
  this.timeout(240_000);
  let model: ModelServer;
  let workbench: Workbench;

  before(async () => {
    model = await ModelServer.start();
    workbench = await Workbench.start({
      workspaceSettings: {
        'toolbelt.tools.registry': [{ name: 'calculator' }, { name: 'read_file' }],
        'toolbelt.provider': 'openai',
        'toolbelt.baseUrl': model.openaiBaseUrl,
        'toolbelt.model': 'scripted-model',
      },
      // VS Code's own chat stays on here: it is what this suite drives.
      userSettings: { 'chat.disableAIFeatures': false },
      env: { OPENAI_API_KEY: 'sk-e2e' },
    });
    // Showing the Tools view loads Toolbelt, which lists its model for the Chat view's picker.
    await workbench.openToolbelt();
  });

  after(async () => {
    await workbench?.close();
    await model?.close();
  });

  it('answers "@toolbelt what is 6*7?" from the configured model after a calculator call shown in the chat', async () => {
    const page = workbench.page;
    model.enqueue({ toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] }, { chunks: ['6 × 7 is ', '**42**.'] });
    await workbench.runCommand('Chat: Open Chat');
    const editor = page.locator('.interactive-input-part .monaco-editor').last();
    await editor.waitFor({ timeout: 60_000 });
    const box = (await editor.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.keyboard.type('@toolbelt what is 6*7?');
    await page.locator('.interactive-input-part', { hasText: 'what is 6*7?' }).last().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    const response = page.locator('.interactive-item-container.interactive-response').last();
    await response.locator('strong', { hasText: '42' }).waitFor({ timeout: 60_000 });
    const text = (await response.textContent()) ?? '';
    assert.match(text, /6 × 7 is 42/);
    assert.equal(model.requests.length, 2);
    const tools = (model.requests[0].body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    assert.deepEqual(tools, ['calculator', 'read_file']);
    const sent = model.requests[1].body.messages as { role: string; content: string }[];
    assert.equal(sent.find((m) => m.role === 'tool')?.content, '42');
    await workbench.screenshot('native-chat-toolbelt-participant');
  });
});
