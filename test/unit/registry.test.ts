import * as assert from 'node:assert/strict';
import { ToolRegistry } from '../../src/tools/registry';
import type { ChatTool, ExecutableTool } from '../../src/tools/interface';
import { FakeTool } from '../support/fakeTools';

describe('ToolRegistry', () => {
  let registry: ToolRegistry;
  beforeEach(() => {
    registry = new ToolRegistry();
  });

  describe('lifecycle (spec 004)', () => {
    it('registers a tool enabled by default', () => {
      registry.register(new FakeTool('alpha'));
      assert.equal(registry.hasTool('alpha'), true);
      assert.equal(registry.isToolEnabled('alpha'), true);
      assert.deepEqual(registry.getEnabledSchemas().map((s) => s.function.name), ['alpha']);
    });

    it('rejects a duplicate name and keeps the first tool', () => {
      const first = new FakeTool('alpha', () => 'first');
      registry.register(first);
      assert.throws(() => registry.register(new FakeTool('alpha', () => 'second')), /already registered/);
      assert.equal(registry.get('alpha'), first);
      assert.equal(registry.getToolNames().length, 1);
    });

    it('unregisters a tool, and unregistering an unknown name does nothing', () => {
      registry.register(new FakeTool('alpha'));
      registry.unregister('alpha');
      assert.equal(registry.hasTool('alpha'), false);
      assert.doesNotThrow(() => registry.unregister('alpha'));
      assert.doesNotThrow(() => registry.unregister('never-there'));
      assert.deepEqual(registry.getToolNames(), []);
    });

    it('disable excludes a tool from schemas but keeps it registered; enable brings it back', () => {
      registry.register(new FakeTool('alpha'));
      registry.register(new FakeTool('beta'));
      registry.disable('alpha');
      assert.deepEqual(registry.getEnabledSchemas().map((s) => s.function.name), ['beta']);
      assert.equal(registry.hasTool('alpha'), true);
      registry.enable('alpha');
      assert.deepEqual(registry.getEnabledSchemas().map((s) => s.function.name), ['alpha', 'beta']);
    });

    it('enable and disable of unknown names report false and change nothing', () => {
      assert.equal(registry.enable('ghost'), false);
      assert.equal(registry.disable('ghost'), false);
      assert.equal(registry.hasTool('ghost'), false);
    });

    it('validates what it registers: schema name, description, object parameters', () => {
      const base = new FakeTool('gamma');
      const withSchema = (schema: ChatTool): ExecutableTool => ({ name: 'gamma', getSchema: () => schema, execute: base.execute.bind(base) });
      const good = base.getSchema();
      assert.throws(() => registry.register(withSchema({ ...good, function: { ...good.function, name: 'other' } })), /names must match/);
      assert.throws(() => registry.register(withSchema({ ...good, function: { ...good.function, description: '' } })), /needs a description/);
      const badParams = { ...good, function: { ...good.function, parameters: { type: 'string' } } } as unknown as ChatTool;
      assert.throws(() => registry.register(withSchema(badParams)), /type "object"/);
      assert.equal(registry.hasTool('gamma'), false);
    });
  });

  describe('lookup (spec 001)', () => {
    it('get returns the registered object itself, undefined when absent, without throwing', () => {
      const tool = new FakeTool('alpha');
      registry.register(tool);
      assert.equal(registry.get('alpha'), tool);
      assert.equal(registry.get('missing'), undefined);
    });

    it('list returns every registered tool, enabled or not, in registration order', () => {
      const tools = ['c', 'a', 'b'].map((n) => new FakeTool(n));
      tools.forEach((t) => registry.register(t));
      registry.disable('a');
      assert.deepEqual(registry.list(), tools);
    });
  });

  describe('introspection (spec 003)', () => {
    it('getToolNames keeps registration order with enabled and disabled tools, [] when empty', () => {
      assert.deepEqual(registry.getToolNames(), []);
      ['zeta', 'alpha', 'mid'].forEach((n) => registry.register(new FakeTool(n)));
      registry.disable('alpha');
      assert.deepEqual(registry.getToolNames(), ['zeta', 'alpha', 'mid']);
    });

    it('hasTool and isToolEnabled answer for registered, disabled and unknown tools', () => {
      registry.register(new FakeTool('on'));
      registry.register(new FakeTool('off'));
      registry.disable('off');
      assert.equal(registry.hasTool('on'), true);
      assert.equal(registry.hasTool('nope'), false);
      assert.equal(registry.isToolEnabled('on'), true);
      assert.equal(registry.isToolEnabled('off'), false);
      assert.equal(registry.isToolEnabled('nope'), false);
    });
  });

  describe('execute (specs 003/004)', () => {
    it('returns the tool result and passes the arguments through', async () => {
      const tool = new FakeTool('echo', (args) => `got ${String(args.value)}`);
      registry.register(tool);
      assert.equal(await registry.execute('echo', { value: 'x' }), 'got x');
      assert.deepEqual(tool.calls, [{ value: 'x' }]);
    });

    it('turns a synchronous throw into "Error executing {name}: {message}"', async () => {
      registry.register({ name: 'boom', getSchema: () => new FakeTool('boom').getSchema(), execute: () => { throw new Error('kaput'); } });
      assert.equal(await registry.execute('boom', {}), 'Error executing boom: kaput');
    });

    it('turns a rejected promise into the same error string', async () => {
      registry.register(new FakeTool('reject', async () => Promise.reject(new Error('nope'))));
      assert.equal(await registry.execute('reject', {}), 'Error executing reject: nope');
    });

    it('formats non-Error rejections readably', async () => {
      registry.register(new FakeTool('str', async () => Promise.reject('plain text')));
      registry.register(new FakeTool('obj', async () => Promise.reject({ code: 42 })));
      assert.equal(await registry.execute('str', {}), 'Error executing str: plain text');
      assert.equal(await registry.execute('obj', {}), 'Error executing obj: {"code":42}');
    });

    it('answers an unknown tool with a not-found error string, never a rejection', async () => {
      const result = await registry.execute('ghost', {});
      assert.match(result, /not found/);
      assert.match(result, /ghost/);
    });

    it('answers a disabled tool with a not-available error string and does not run it', async () => {
      const tool = new FakeTool('sleepy');
      registry.register(tool);
      registry.disable('sleepy');
      assert.match(await registry.execute('sleepy', {}), /not available/);
      assert.equal(tool.calls.length, 0);
    });

    it('passes a signal to the tool that aborts when the caller aborts', async () => {
      let seen: AbortSignal | undefined;
      const controller = new AbortController();
      registry.register(
        new FakeTool('sig', (_args, options) => {
          seen = options?.signal;
          assert.equal(seen?.aborted, false);
          controller.abort();
          return 'ok';
        }),
      );
      await registry.execute('sig', {}, { signal: controller.signal });
      assert.equal(seen?.aborted, true);
    });
  });

  describe('getToolsForProvider (spec 001)', () => {
    beforeEach(() => {
      ['first', 'second', 'third'].forEach((n) => registry.register(new FakeTool(n)));
      registry.disable('third');
    });

    it('gives OpenAI the {type: "function", function: {...}} shape for enabled tools', () => {
      const tools = registry.getToolsForProvider('openai');
      assert.deepEqual(tools.map((t) => t.type), ['function', 'function']);
      assert.deepEqual(tools.map((t) => t.function.name), ['first', 'second']);
      assert.deepEqual(Object.keys(tools[0].function).sort(), ['description', 'name', 'parameters']);
    });

    it('gives Ollama the OpenAI-compatible shape', () => {
      assert.deepEqual(registry.getToolsForProvider('ollama'), registry.getToolsForProvider('openai'));
    });

    it('gives Gemini one {functionDeclarations: [...]} object', () => {
      const tools = registry.getToolsForProvider('gemini');
      assert.deepEqual(Object.keys(tools), ['functionDeclarations']);
      assert.deepEqual(tools.functionDeclarations.map((d) => d.name), ['first', 'second']);
      assert.equal(tools.functionDeclarations[0].description, 'The first test tool');
      assert.equal(tools.functionDeclarations[0].parameters?.type, 'object');
    });

    it('filters by an allowed list and keeps registry order', () => {
      assert.deepEqual(registry.getToolsForProvider('openai', ['second', 'first', 'third', 'unknown']).map((t) => t.function.name), ['first', 'second']);
      assert.deepEqual(registry.getToolsForProvider('gemini', ['second']).functionDeclarations.map((d) => d.name), ['second']);
      assert.deepEqual(registry.getToolsForProvider('openai', []), []);
    });

    it('throws an error naming an unsupported provider', () => {
      assert.throws(() => registry.getToolsForProvider('anthropic'), /"anthropic" is not supported/);
    });

    it('returns copies: changing them does not change the registry', () => {
      const tools = registry.getToolsForProvider('openai');
      tools[0].function.description = 'changed';
      assert.equal(registry.getToolsForProvider('openai')[0].function.description, 'The first test tool');
    });
  });
});
