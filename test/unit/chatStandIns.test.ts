import * as assert from 'node:assert/strict';
import Module from 'node:module';
import * as path from 'node:path';
import type { ChatStandIns as ChatStandInsType } from '../../src/vscode/chatStandIns';
import { FakeDisposable as Disposable } from '../support/fakeDisposable';

type Tool = { invoke(options: unknown, token: unknown): unknown; prepareInvocation?(options: unknown, token: unknown): unknown };

/** The part of VS Code's API chatStandIns.ts uses, recording what is registered. */
function fakeVscode() {
  const tools = new Map<string, Tool>();
  const participants: string[] = [];
  return {
    tools,
    participants,
    api: {
      Disposable,
      lm: {
        registerTool(name: string, tool: Tool) {
          if (tools.has(name)) throw new Error(`${name} is registered twice`);
          tools.set(name, tool);
          return new Disposable(() => tools.delete(name));
        },
      },
      chat: {
        createChatParticipant(id: string) {
          participants.push(id);
          return { id, dispose: () => undefined };
        },
      },
    },
  };
}

/** chatStandIns.js as the shell loads it, bound to `vscode` (required once, in shellVscode.js). */
function loadWith(vscode: unknown): typeof ChatStandInsType {
  const dir = path.join(__dirname, '..', '..', 'src', 'vscode');
  const files = [require.resolve(path.join(dir, 'chatStandIns.js')), require.resolve(path.join(dir, 'shellVscode.js'))];
  const forget = () => files.forEach((file) => delete require.cache[file]);
  const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
  const original = loader._load;
  loader._load = function (this: unknown, request, parent, isMain) {
    return request === 'vscode' ? vscode : original.call(this, request, parent, isMain);
  };
  try {
    forget();
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded against the fake API on purpose
    return (require(files[0]) as { ChatStandIns: typeof ChatStandInsType }).ChatStandIns;
  } finally {
    loader._load = original;
    forget();
  }
}

/** The fake's tools answer plain values; VS Code's type wants its result class. */
const asLmTool = (tool: Tool) => tool as unknown as Parameters<ChatStandInsType['lmTool']>[1];

const CONTRIBUTES = {
  languageModelTools: [{ name: 'toolbelt_read_file' }, { name: 'toolbelt_calculator' }, { name: 'toolbelt_run_bash' }],
  chatParticipants: [{ id: 'toolbelt.toolbelt' }],
};

describe('ChatStandIns: what the shell registers for VS Code\'s chat at activation', () => {
  it('stands in only for the tools the registry names (objects and bare strings), and always for the participant', () => {
    const vscode = fakeVscode();
    const ChatStandIns = loadWith(vscode.api);
    new ChatStandIns(CONTRIBUTES, [{ name: 'read_file' }, ' calculator ', { name: 'github/*' }, 42, null], () => undefined);
    assert.deepEqual([...vscode.tools.keys()].sort(), ['toolbelt_calculator', 'toolbelt_read_file']);
    assert.deepEqual(vscode.participants, ['toolbelt.toolbelt']);
  });

  it('registers no tool in a workspace whose registry is missing or not a list', () => {
    for (const registry of [undefined, {}, 'read_file']) {
      const vscode = fakeVscode();
      new (loadWith(vscode.api))(CONTRIBUTES, registry, () => undefined);
      assert.equal(vscode.tools.size, 0, `registry ${JSON.stringify(registry)}`);
      assert.deepEqual(vscode.participants, ['toolbelt.toolbelt']);
    }
  });

  it("a stand-in loads the host on its first call and runs the host's implementation", async () => {
    const vscode = fakeVscode();
    const loads: string[] = [];
    const standIns = new (loadWith(vscode.api))(CONTRIBUTES, [{ name: 'read_file' }], (reason) => {
      loads.push(reason);
      standIns.lmTool('toolbelt_read_file', asLmTool({ invoke: (options) => `read ${JSON.stringify(options)}` }));
    });
    const registered = vscode.tools.get('toolbelt_read_file');
    assert.ok(registered);
    assert.equal(await registered.invoke({ path: 'a.txt' }, undefined), 'read {"path":"a.txt"}');
    assert.deepEqual(loads, ["VS Code's chat (toolbelt_read_file)"]);
    assert.equal(vscode.tools.get('toolbelt_read_file'), registered, 'the stand-in stays registered; the implementation is handed to it');
  });

  it('the host registers the tools that had no stand-in itself, and takes them back on dispose', () => {
    const vscode = fakeVscode();
    const standIns = new (loadWith(vscode.api))(CONTRIBUTES, [{ name: 'read_file' }], () => undefined);
    const calculator: Tool = { invoke: () => '4' };
    const registration = standIns.lmTool('toolbelt_calculator', asLmTool(calculator));
    assert.equal(vscode.tools.get('toolbelt_calculator'), calculator);
    registration.dispose();
    assert.equal(vscode.tools.has('toolbelt_calculator'), false);
    assert.equal(vscode.tools.has('toolbelt_read_file'), true, 'the stand-in is the shell\'s to dispose');
  });

  it('a stand-in whose host gave no implementation says so', () => {
    const vscode = fakeVscode();
    new (loadWith(vscode.api))(CONTRIBUTES, [{ name: 'run_bash' }], () => undefined);
    assert.throws(() => vscode.tools.get('toolbelt_run_bash')!.invoke({}, undefined), /Toolbelt has no implementation of toolbelt_run_bash/);
  });
});
