import * as assert from 'node:assert/strict';
import { chatSettingsOf, providerConfig } from '../../src/cli/runCommand';
import { parseSettingsText, SettingsSnapshot } from '../../src/cli/settingsFiles';
import { providerSettingsOf, readChatSettings } from '../../src/providers/chatSettings';

function snapshot(workspace: Record<string, unknown>, user: Record<string, unknown> = {}): SettingsSnapshot {
  const file = (values: Record<string, unknown>, label: string) => ({ path: label, label, exists: true, text: JSON.stringify(values), ...parseSettingsText(JSON.stringify(values), label) });
  return new SettingsSnapshot(file(workspace, '.vscode/settings.json'), file(user, 'user.json'));
}

describe('chat settings: one reading for the panel, VS Code\'s Chat and the CLI', () => {
  it('checks and clamps every value, with the defaults VS Code declares', () => {
    assert.deepEqual(readChatSettings(() => undefined), {
      provider: 'openai', model: '', baseUrl: '', systemPrompt: '', sessionContextFile: '.toolbelt/session-context.md',
      maxToolRounds: 25, requestTimeoutSeconds: 60, toolCalling: 'auto', contextWindow: 0,
    });
    const odd: Record<string, unknown> = { provider: 'nope', model: ' m ', 'chat.maxToolRounds': 9999, 'chat.requestTimeoutSeconds': 1, toolCalling: 'sometimes', 'chat.contextWindow': -5 };
    const read = readChatSettings((key) => odd[key]);
    assert.deepEqual([read.provider, read.model, read.maxToolRounds, read.requestTimeoutSeconds, read.toolCalling, read.contextWindow], ['openai', 'm', 200, 5, 'auto', 0]);
  });

  it('the CLI reads the same values from its files (workspace over the person\'s) as VS Code from its configuration', () => {
    const values = { 'toolbelt.provider': 'ollama', 'toolbelt.model': 'qwen', 'toolbelt.chat.maxToolRounds': 3, 'toolbelt.chat.requestTimeoutSeconds': 30, 'toolbelt.toolCalling': 'prompt', 'toolbelt.chat.contextWindow': 8192 };
    const cli = chatSettingsOf(snapshot(values, { 'toolbelt.model': 'the-person\'s' }));
    const vscodeLike = readChatSettings((key) => (values as Record<string, unknown>)[`toolbelt.${key}`]);
    assert.deepEqual(cli, vscodeLike);
    assert.deepEqual(providerConfig(snapshot(values), { env: {} }), { ...providerSettingsOf(vscodeLike, 'ollama') });
  });
});
