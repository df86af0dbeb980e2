import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const REPO = path.resolve(__dirname, '../../..');

/** [file it is planted in, its one line, whether lint must refuse it]. */
const PLANTED: [string, string, boolean][] = [
  ['src/tools/planted.ts', "import { x } from '../vscode/host';", true],
  ['src/tools/planted.ts', "export const m = require('../cli/main');", true],
  ['src/tools/planted.ts', "export const m = () => import('../agent/runtime');", true],
  ['src/tools/planted.ts', "import * as vscode from 'vscode';", true],
  ['src/tools/planted.ts', "import { x } from './registry';", false],
  ['src/tools/planted.ts', "import { x } from '../policy';", true],
  ['src/policy/planted.ts', "import { x } from '../tools/trustRules';", false],
  ['src/policy/planted.ts', "import * as vscode from 'vscode';", true],
  ['src/policy/planted.ts', "export const m = () => import('../cli/main');", true],
  ['src/cli/planted.ts', "import { x } from '../policy';", false],
  ['src/cli/planted.ts', "import { x } from '../tools/sandbox/sandboxLaunch';", true],
  ['src/cli/planted.ts', "import { x } from '../tools/sandbox';", false],
  ['src/tools/planted.ts', "export const m = require('./command/commandJudge');", true],
  ['src/tools/planted.ts', "import { x } from './command';", false],
  ['src/tools/command/planted.ts', "import { x } from './commandJudge';", false],
  ['src/tools/command/planted.ts', "import { x } from '../sandbox/sandboxLaunch';", true],
  ['src/tools/mcp/planted.ts', "export const m = () => import('../undo/checkpoints');", true],
  ['src/vscode/planted.ts', "import { x } from '../tools/agents/agentInstall';", true],
  ['src/vscode/planted.ts', "import { x } from '../tools/agents';", false],
  ['src/cli/planted.ts', "import { x } from '../tools/mcp/mcpConfig';", true],
  ['src/cli/planted.ts', "import { x } from '../tools/mcp';", false],
  ['src/providers/planted.ts', "export type M = typeof import('../chat/chatController');", true],
  ['src/agent/planted.ts', "import { x } from '../providers/openai';", false],
  ['src/chat/planted.ts', "import x = require('../cli/main');", true],
  ['src/cli/planted.ts', "export const m = () => import('../vscode/host');", true],
  ['src/cli/planted.ts', "import { x } from '../chat/chatController';", true],
  ['src/cli/planted.ts', "import { x } from '../tools/registry';", false],
  ['src/vscode/planted.ts', "import { x } from '../cli/main';", true],
  ['src/vscode/planted.ts', "export const m = require('../webview/main');", true],
  ['src/vscode/planted.ts', "import * as vscode from 'vscode';", false],
  ['src/vscode/sub/planted.ts', "import { x } from '../../chat/chatController';", false],
  ['src/webview/planted.ts', "import { x } from '../tools/registry';", true],
  ['src/webview/planted.ts', "import { x } from '../common/languages';", false],
  ['src/webview/planted.ts', "import { x } from '../protocol';", false],
  ['src/common/planted.ts', "import { x } from '../protocol';", true],
  ['src/extension.ts', "import { x } from './tools/registry';", true],
  ['src/extension.ts', "import { x } from './vscode/lazyHost';", false],
  ['src/protocol.ts', "import { x } from './common/visibleText';", false],
  ['src/protocol.ts', "import { x } from './tools/registry';", true],
  ['src/cli/planted.ts', "import { x } from '../common/visibleText';", false],
];

describe('lint zones: every folder keeps its layer, static and dynamic imports alike', function () {
  this.timeout(120_000);
  const eslint = new ESLint({ cwd: REPO });

  for (const [file, line, refused] of PLANTED) {
    it(`${refused ? 'refuses' : 'lets through'} ${line} in ${file}`, async () => {
      const [result] = await eslint.lintText(`${line}\nexport {};\n`, { filePath: path.join(REPO, file) });
      const layerErrors = result.messages.filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax');
      assert.equal(layerErrors.length > 0, refused, JSON.stringify(result.messages.map((m) => `${m.ruleId}: ${m.message}`)));
    });
  }
});
