import * as assert from 'node:assert/strict';
import { BUILTIN_MANIFEST } from '../../src/tools/manifest';
import { ToolManager, type WaitingTool } from '../../src/tools/toolManager';
import { FakeToolSource, RecordingLogger, sourceTool } from '../support/fakeToolSource';
import { contextFor, TempWorkspace } from '../support/workspace';


const running = { state: 'running' } as const;

describe('tool catalog: sources beside the builtins (issue 11)', () => {
  let ws: TempWorkspace;
  let logger: RecordingLogger;
  let manager: ToolManager;
  let github: FakeToolSource;
  let extensions: FakeToolSource;
  before(async () => {
    ws = await TempWorkspace.create();
  });
  after(() => ws.dispose());
  beforeEach(() => {
    logger = new RecordingLogger();
    manager = new ToolManager({ context: contextFor(ws, { answer: true }), logger });
    github = new FakeToolSource('github', {
      label: 'GitHub',
      state: running,
      tools: [sourceTool('create_issue'), sourceTool('list_issues', { readOnlyHint: true })],
    });
    extensions = new FakeToolSource('extensions', {
      kind: 'extension',
      label: 'Other extensions',
      state: running,
      tools: [sourceTool('copilot_searchCodebase'), sourceTool('toolbelt_read_file')],
    });
  });

  const names = () => manager.list().map((t) => t.name);
  const offered = () => manager.registry.getToolsForProvider('openai').map((t) => t.function.name);

  describe('available()', () => {
    it('lists the builtins first, then each source in its order, each with its source', () => {
      manager.addSource(github);
      manager.addSource(extensions);
      const { tools, count } = manager.available();
      assert.equal(count, tools.length);
      assert.deepEqual(tools.slice(0, BUILTIN_MANIFEST.length).map((t) => t.name), BUILTIN_MANIFEST.map((t) => t.name));
      assert.deepEqual(tools.slice(BUILTIN_MANIFEST.length).map((t) => [t.name, t.modelName, t.source.id, t.source.kind]), [
        ['github/create_issue', 'github_create_issue', 'github', 'mcp'],
        ['github/list_issues', 'github_list_issues', 'github', 'mcp'],
        ['copilot_searchCodebase', 'copilot_searchCodebase', 'extensions', 'extension'],
      ]);
      assert.deepEqual(tools[0].source, { id: 'builtin', kind: 'builtin', label: 'Builtins' });
      for (const tool of tools.slice(BUILTIN_MANIFEST.length)) assert.equal(tool.risk, 'exec', 'an outside tool counts as able to change anything');
      assert.equal(tools.find((t) => t.name === 'github/list_issues')!.type === 'mcp' && (tools.find((t) => t.name === 'github/list_issues') as { readOnlyHint?: boolean }).readOnlyHint, true);
      for (const tool of tools) assert.equal('enabled' in tool, false);
    });

    it("never lists Toolbelt's own toolbelt_* tools from the extensions source", () => {
      manager.addSource(extensions);
      assert.equal(manager.available().tools.some((t) => t.name.startsWith('toolbelt_')), false);
    });

    it('shows nothing of a source that is not running, and its tools once it runs', async () => {
      const idle = new FakeToolSource('idle', { tools: [sourceTool('ping')] });
      manager.addSource(idle);
      assert.equal(manager.available().count, BUILTIN_MANIFEST.length);
      await idle.start();
      assert.deepEqual(manager.available().tools.slice(BUILTIN_MANIFEST.length).map((t) => t.name), ['idle/ping']);
    });

    it('refuses a second source with a taken id', () => {
      manager.addSource(github);
      assert.throws(() => manager.addSource(new FakeToolSource('github')), /already added/);
      assert.throws(() => manager.addSource(new FakeToolSource('builtin')), /already added/);
    });
  });

  describe('resolving entries', () => {
    it('registers "<server>/<tool>" and offers it to the model under its sanitized name', () => {
      manager.addSource(github);
      const result = manager.applyConfig([{ name: 'read_file' }, { name: 'github/create_issue' }]);
      assert.deepEqual(result, { warnings: [], errors: [] });
      assert.deepEqual(names(), ['read_file', 'github/create_issue']);
      assert.deepEqual(offered(), ['read_file', 'github_create_issue']);
      const [, issue] = manager.list();
      assert.equal(issue.state, 'ready');
      assert.equal(issue.enabled, true);
      assert.equal(issue.modelName, 'github_create_issue');
      assert.deepEqual(issue.source, { id: 'github', kind: 'mcp', label: 'GitHub' });
      assert.equal(issue.runWithoutAsking, false);
    });

    it('registers a tool of another extension by its bare name', () => {
      manager.addSource(extensions);
      assert.deepEqual(manager.applyConfig([{ name: 'copilot_searchCodebase' }]), { warnings: [], errors: [] });
      assert.deepEqual(offered(), ['copilot_searchCodebase']);
    });

    it('expands "<server>/*" to every tool of the server in its order, leaving explicit entries their place', () => {
      manager.addSource(github);
      manager.applyConfig([{ name: 'github/*' }, { name: 'calculator' }]);
      assert.deepEqual(names(), ['github/create_issue', 'github/list_issues', 'calculator']);
      manager.applyConfig([{ name: 'github/*' }, { name: 'github/create_issue', description: 'Mine' }]);
      assert.deepEqual(names(), ['github/list_issues', 'github/create_issue']);
      assert.equal(manager.list()[1].description, 'Mine');
      assert.deepEqual(manager.problems(), { warnings: [], errors: [] });
    });

    it('grows and shrinks "<server>/*" when the server changes its tool list, and tells listeners', () => {
      manager.addSource(github);
      manager.applyConfig([{ name: 'github/*' }]);
      let changes = 0;
      manager.onDidChange(() => changes++);
      github.setTools([sourceTool('create_issue'), sourceTool('list_issues'), sourceTool('close_issue')]);
      assert.deepEqual(offered(), ['github_create_issue', 'github_list_issues', 'github_close_issue']);
      github.setTools([sourceTool('close_issue')]);
      assert.deepEqual(offered(), ['github_close_issue']);
      assert.equal(changes, 2);
    });

    it('keeps a name whose server is not running as waiting, not unknown, and registers it once the server runs', async () => {
      const later = new FakeToolSource('later', { tools: [sourceTool('ping')] });
      manager.addSource(later);
      const result = manager.applyConfig([{ name: 'later/ping' }, { name: 'later/*' }, { name: 'calculator' }]);
      assert.deepEqual(result, { warnings: [], errors: [] });
      const [ping, all] = manager.list() as WaitingTool[];
      assert.equal(ping.state, 'waiting');
      assert.equal(ping.enabled, false);
      assert.equal(ping.modelName, 'later_ping');
      assert.match(ping.reason, /later has not started/);
      assert.equal(all.name, 'later/*');
      assert.equal(all.modelName, undefined);
      assert.deepEqual(offered(), ['calculator'], 'nothing waiting is offered to the model');
      assert.deepEqual(manager.sourcesNeeded(), [later]);

      let changes = 0;
      manager.onDidChange(() => changes++);
      await manager.startNeededSources();
      assert.equal(later.starts, 1);
      assert.ok(changes >= 1);
      assert.deepEqual(names(), ['later/ping', 'calculator']);
      assert.deepEqual(offered(), ['later_ping', 'calculator']);
      assert.deepEqual(manager.sourcesNeeded(), []);
    });

    it('shows why a failed server is waiting and leaves it to a restart', async () => {
      const broken = new FakeToolSource('broken', { tools: [sourceTool('ping')] });
      broken.startsInto = { state: 'failed', reason: 'spawn npx ENOENT' };
      manager.addSource(broken);
      manager.applyConfig([{ name: 'broken/ping' }]);
      await manager.startNeededSources();
      const [ping] = manager.list() as WaitingTool[];
      assert.equal(ping.state, 'waiting');
      assert.match(ping.reason, /broken failed: spawn npx ENOENT/);
      assert.deepEqual(manager.sourcesNeeded(), []);
    });

    it('warns about a server nobody defined as an unknown tool, with a hint', () => {
      manager.addSource(github);
      const result = manager.applyConfig([{ name: 'gitlab/create_issue' }, { name: 'github/create_isue' }, { name: 'github' }]);
      assert.equal(result.warnings.length, 3);
      assert.match(result.warnings[0], /\[0\]: unknown tool "gitlab\/create_issue"/);
      assert.match(result.warnings[1], /unknown tool "github\/create_isue" \(did you mean "github\/create_issue"\?\)/);
      assert.match(result.warnings[2], /did you mean "github\/\*"/);
      assert.deepEqual(manager.list(), []);
    });

    it("refuses Toolbelt's own toolbelt_* names with a warning that names the builtin", () => {
      manager.addSource(extensions);
      const result = manager.applyConfig([{ name: 'toolbelt_read_file' }, { name: 'toolbelt_anything' }]);
      assert.equal(result.warnings.length, 2);
      assert.match(result.warnings[0], /Toolbelt's own tool.*\{"name": "read_file"\}/);
      assert.deepEqual(manager.list(), []);
      assert.deepEqual(offered(), []);
    });

    it('still finds the tools of an MCP server whose own name starts with toolbelt_', () => {
      manager.addSource(new FakeToolSource('toolbelt_demo', { state: running, tools: [sourceTool('ping')] }));
      assert.deepEqual(manager.applyConfig([{ name: 'toolbelt_demo/ping' }]), { warnings: [], errors: [] });
      assert.deepEqual(offered(), ['toolbelt_demo_ping']);
    });

    it('rejects duplicates of a tool or of a whole server, the first staying', () => {
      manager.addSource(github);
      const result = manager.applyConfig([
        { name: 'github/create_issue', description: 'first' },
        { name: 'github/create_issue', description: 'second' },
        { name: 'github/*' },
        { name: 'github/*' },
      ]);
      assert.equal(result.errors.length, 2);
      assert.match(result.errors[0], /registry\[1\].*"github\/create_issue" is already registered.*\[0\]/);
      assert.match(result.errors[1], /registry\[3\].*"github\/\*" is already registered.*\[2\]/);
      assert.deepEqual(names(), ['github/create_issue', 'github/list_issues']);
      assert.equal(manager.list()[0].description, 'first');
    });

    it('warns about extra fields on an outside tool, ignores them and still registers it', () => {
      manager.addSource(github);
      const result = manager.applyConfig([{ name: 'github/create_issue', command: 'rm -rf /', parameters: {} }]);
      assert.equal(result.warnings.length, 1);
      assert.match(result.warnings[0], /"command", "parameters" are deprecated and ignored; GitHub defines the tool/);
      assert.deepEqual(manager.list()[0].parameters, sourceTool('create_issue').parameters);
    });

    it('ignores a description on "<server>/*" with a warning', () => {
      manager.addSource(github);
      const result = manager.applyConfig([{ name: 'github/*', description: 'all of them' }]);
      assert.match(result.warnings[0], /applies to one tool/);
      assert.equal(manager.list()[0].description, 'The create_issue tool');
    });
  });

  describe('model-name clashes', () => {
    it('reports two tools that reach the model under one name, naming both; the first stays', () => {
      const a = new FakeToolSource('a', { state: running, tools: [sourceTool('b_c')] });
      const ab = new FakeToolSource('a_b', { state: running, tools: [sourceTool('c')] });
      manager.addSource(a);
      manager.addSource(ab);
      const result = manager.applyConfig([{ name: 'a/b_c' }, { name: 'a_b/c' }]);
      assert.equal(result.errors.length, 1);
      assert.match(result.errors[0], /registry\[1\]: "a_b\/c" would reach the model as "a_b_c", a name "a\/b_c" \(toolbelt\.tools\.registry\[0\]\) already has/);
      assert.deepEqual(names(), ['a/b_c']);
      assert.deepEqual(offered(), ['a_b_c']);
      assert.deepEqual(logger.errors, result.errors);
    });

    it("reports a tool whose model name is a builtin's, even when the builtin is not registered", () => {
      const read = new FakeToolSource('read', { state: running, tools: [sourceTool('file')] });
      const other = new FakeToolSource('extensions', { kind: 'extension', state: running, tools: [sourceTool('calculator')] });
      manager.addSource(read);
      manager.addSource(other);
      const result = manager.applyConfig([{ name: 'read/file' }, { name: 'calculator' }]);
      assert.equal(result.errors.length, 1);
      assert.match(result.errors[0], /"read\/file" would reach the model as "read_file", a name the builtin "read_file" already has/);
      assert.deepEqual(names(), ['calculator']);
      assert.equal(manager.list()[0].source.kind, 'builtin', 'a bare builtin name always means the builtin');
    });

    it('never renames a clashing tool: it stays out, under no second name', () => {
      const a = new FakeToolSource('x', { state: running, tools: [sourceTool('y.z'), sourceTool('y_z')] });
      manager.addSource(a);
      manager.applyConfig([{ name: 'x/*' }]);
      assert.deepEqual(offered(), ['x_y_z']);
      assert.equal(manager.problems().errors.length, 1);
      assert.match(manager.problems().errors[0], /"x\/y_z".*"x_y_z".*"x\/y\.z"/);
    });
  });

  describe('source life', () => {
    it('logs a message once, not again at every change of a source', () => {
      manager.addSource(github);
      manager.applyConfig([{ name: 'github/nope' }]);
      assert.equal(logger.warnings.length, 1);
      github.setState({ state: 'running' });
      github.setTools([sourceTool('create_issue')]);
      assert.equal(logger.warnings.length, 1);
      assert.equal(manager.problems().warnings.length, 1);
    });

    it('logs a new problem a change of the source brings', () => {
      manager.addSource(github);
      manager.applyConfig([{ name: 'github/*' }]);
      assert.equal(logger.errors.length, 0);
      github.setTools([sourceTool('a.b'), sourceTool('a_b')]);
      assert.equal(logger.errors.length, 1);
      assert.match(logger.errors[0], /"github\/a_b" would reach the model as "github_a_b", a name "github\/a\.b"/);
      assert.deepEqual(offered(), ['github_a_b']);
    });

    it('removes a source on dispose: its listener goes and its names become unknown', () => {
      const subscription = manager.addSource(github);
      manager.applyConfig([{ name: 'github/create_issue' }]);
      assert.equal(github.listenerCount, 1);
      subscription.dispose();
      subscription.dispose();
      assert.equal(github.listenerCount, 0);
      assert.deepEqual(manager.list(), []);
      assert.match(manager.problems().warnings[0], /unknown tool "github\/create_issue"/);
      assert.deepEqual(manager.sources(), []);
    });

    it('survives a source that throws from tools() and state()', () => {
      const bad = new FakeToolSource('bad', { state: running });
      bad.tools = () => {
        throw new Error('boom');
      };
      manager.addSource(bad);
      assert.equal(manager.available().count, BUILTIN_MANIFEST.length);
      bad.state = () => {
        throw new Error('state boom');
      };
      const result = manager.applyConfig([{ name: 'bad/x' }]);
      assert.deepEqual(result.errors, []);
      assert.match((manager.list()[0] as WaitingTool).reason, /failed: state boom/);
    });

    it('needs no source in an untrusted workspace: their tools could not be enabled', () => {
      const untrusted = new ToolManager({ context: contextFor(ws), trusted: false });
      const later = new FakeToolSource('later', { tools: [sourceTool('ping')] });
      untrusted.addSource(later);
      untrusted.applyConfig([{ name: 'later/ping' }]);
      assert.deepEqual(untrusted.sourcesNeeded(), []);
    });
  });
});
