import * as assert from 'node:assert/strict';
import type { ToolbeltApi } from '../../src/vscode/api';
import { lazyApi } from '../../src/vscode/lazyApi';

/** A host API whose every member answers with its own name and arguments. */
function echoApi(): ToolbeltApi {
  const echo = (name: string) => (...args: unknown[]) => `${name}(${args.join(',')})`;
  const promised = (name: string) => async (...args: unknown[]) => echo(name)(...args);
  return {
    tools: { available: echo('available'), list: echo('list'), enable: promised('enable'), disable: promised('disable'), problems: echo('problems'), log: promised('log'), policy: echo('policy') },
    chat: { send: promised('send'), undoLastTurn: promised('undoLastTurn'), context: echo('context') },
    views: { toolsTree: echo('toolsTree') },
    activationMs: -1,
  } as unknown as ToolbeltApi;
}

describe('lazyApi: what activate() returns before the host is loaded', () => {
  it('loads the host on the first call of any member, naming the member, and runs the host\'s own with the arguments', async () => {
    const loads: string[] = [];
    const host = echoApi();
    const api = lazyApi((member) => (loads.push(member), host), 2.5);
    assert.equal(api.activationMs, 2.5);
    assert.deepEqual(loads, [], 'reading activationMs or the namespaces loads nothing');
    assert.equal(api.tools.list(), 'list()' as unknown);
    assert.equal(await api.tools.enable('read_file'), 'enable(read_file)' as unknown);
    assert.equal(await api.chat.send('hi'), 'send(hi)');
    assert.equal(api.views.toolsTree(), 'toolsTree()' as unknown);
    assert.deepEqual(loads, ['api.tools.list', 'api.tools.enable', 'api.chat.send', 'api.views.toolsTree']);
  });

  it('members that return a promise reject when the host cannot start; the others throw', async () => {
    const api = lazyApi(() => {
      throw new Error('Toolbelt could not start: broken');
    }, 0);
    const pending = api.tools.enable('read_file');
    assert.ok(pending instanceof Promise, 'no synchronous throw');
    await assert.rejects(pending, /could not start: broken/);
    await assert.rejects(api.chat.send('hi'), /could not start: broken/);
    assert.throws(() => api.tools.list(), /could not start: broken/);
  });
});
