import * as assert from 'node:assert/strict';
import type { ToolCaller } from '../../src/tools/caller';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import type { ChangeTarget, ConfirmationRequest, ToolContext } from '../../src/tools/types';
import { TempWorkspace } from '../support/workspace';

/** A context whose state lives in #private fields, as a class-based library user writes it. */
class PrivateContext implements ToolContext {
  readonly #root: string;
  readonly asked: ConfirmationRequest[] = [];
  constructor(root: string) {
    this.#root = root;
  }
  get systemPrompt() {
    return 'private prompt';
  }
  get sessionContext() {
    return 'private summary';
  }
  get sessionContextFilePath() {
    return 'ctx.md';
  }
  get workspaceRoot() {
    return this.#root;
  }
  async confirm(request: ConfirmationRequest) {
    this.asked.push(request);
    return true;
  }
}

describe('The core as a library: callers per call, contexts never wrapped or changed', () => {
  let ws: TempWorkspace;

  beforeEach(async () => {
    ws = await TempWorkspace.create({ '.vscode/settings.json': '{}' });
  });

  afterEach(() => ws.dispose());

  const base = () => ({ systemPrompt: 'p', sessionContext: 'the context summary', sessionContextFilePath: 'ctx.md', workspaceRoot: ws.root });

  it('a frozen context with confirm asks before a protected write and writes it', async () => {
    const asked: ConfirmationRequest[] = [];
    const ctx: ToolContext = Object.freeze({ ...base(), confirm: async (r: ConfirmationRequest) => (asked.push(r), true) });
    const result = await createDefaultToolRegistry(ctx).run('write_file', { path: '.vscode/settings.json', content: '{"a":1}' });
    assert.equal(result.status, 'ok', result.text);
    assert.deepEqual(asked.map((r) => r.reason), ['protected']);
    assert.equal(await ws.read('.vscode/settings.json'), '{"a":1}');
  });

  it('a context whose confirm is a non-writable property works, and is not changed', async () => {
    const asked: ConfirmationRequest[] = [];
    const ctx: ToolContext = Object.create(base(), { confirm: { value: async (r: ConfirmationRequest) => (asked.push(r), true), writable: false, enumerable: true } });
    const before = Object.getOwnPropertyDescriptors(ctx);
    const registry = createDefaultToolRegistry(ctx);
    registry.enable('remove');
    assert.equal((await registry.run('write_file', { path: '.vscode/a.json', content: '{}' })).status, 'ok');
    assert.equal((await registry.run('remove', { path: '.vscode/a.json' })).status, 'ok');
    assert.deepEqual(asked.map((r) => r.reason), ['protected', 'protected']);
    assert.deepEqual(Object.getOwnPropertyDescriptors(ctx), before, 'the context has the same own properties as before');
  });

  it('a class-based context with #private fields works: its methods run on the instance', async () => {
    const ctx = new PrivateContext(ws.root);
    const registry = createDefaultToolRegistry(ctx);
    const write = await registry.run('write_file', { path: '.vscode/settings.json', content: '{"b":2}' });
    assert.equal(write.status, 'ok', write.text);
    assert.equal(ctx.asked.length, 1);
    assert.equal((await registry.run('save_session_context', { reason: 'r' })).status, 'ok');
    assert.match(await ws.read('ctx.md'), /private summary/);
  });

  it("a caller's hooks win over the context's: its confirm asks, its undo records, its conversation is saved", async () => {
    const contextAsked: ConfirmationRequest[] = [];
    const ctx: ToolContext = Object.freeze({ ...base(), confirm: async (r: ConfirmationRequest) => (contextAsked.push(r), false) });
    const registry = createDefaultToolRegistry(ctx);
    const calls: { asked: string[]; changed: string[] }[] = [];
    const callerFor = (name: string): ToolCaller => {
      const seen = { asked: [] as string[], changed: [] as string[] };
      calls.push(seen);
      return {
        kind: 'test',
        chatId: name,
        sessionContext: `summary of ${name}`,
        confirm: async (r) => (seen.asked.push(r.summary), true),
        beforeChange: async (targets: readonly ChangeTarget[]) => void seen.changed.push(...targets.map((t) => t.display)),
      };
    };
    const [first, second] = await Promise.all([
      registry.run('write_file', { path: '.vscode/one.json', content: '1' }, { caller: callerFor('one') }),
      registry.run('write_file', { path: 'two.txt', content: '2' }, { caller: callerFor('two') }),
    ]);
    assert.equal(first.status, 'ok', first.text);
    assert.equal(second.status, 'ok', second.text);
    assert.deepEqual(calls[0], { asked: ['Write .vscode/one.json'], changed: ['.vscode/one.json'] });
    assert.deepEqual(calls[1], { asked: [], changed: ['two.txt'] });
    assert.equal(contextAsked.length, 0, "the context's confirm was not asked for a call that has a caller");

    await registry.run('save_session_context', { reason: 'x' }, { caller: callerFor('three') });
    assert.match(await ws.read('ctx.md'), /summary of three/);
  });

  it('a caller that cannot ask gets protected writes refused, and the file is not written', async () => {
    const registry = createDefaultToolRegistry(Object.freeze({ ...base(), confirm: async () => true }));
    const result = await registry.run('write_file', { path: '.vscode/settings.json', content: 'changed' }, { caller: { kind: 'mcp', chatId: 'client' } });
    assert.equal(result.status, 'refused');
    assert.match(result.text, /protected path/);
    assert.equal(await ws.read('.vscode/settings.json'), '{}');
  });

  it('reports the caller with every call to the registry observers', async () => {
    const registry = createDefaultToolRegistry(Object.freeze(base()));
    const seen: (string | undefined)[] = [];
    registry.onDidRun((report) => seen.push(report.caller?.chatId));
    await registry.run('calculator', { expression: '1+1' }, { caller: { kind: 'test', chatId: 'abc' } });
    await registry.run('calculator', { expression: '1+1' });
    assert.deepEqual(seen, ['abc', undefined]);
  });
});
