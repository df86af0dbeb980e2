import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type * as LazyHostModule from '../../src/vscode/lazyHost';
import type { ShellParts } from '../../src/vscode/shellParts';
import { FakeDisposable } from '../support/fakeDisposable';
import { requireWithVscode } from '../support/withFakeVscode';

const SRC = path.join(__dirname, '..', '..', 'src', 'vscode');
const HOST = require.resolve(path.join(SRC, 'host.js'));
const PRESENCE = require.resolve(path.join(SRC, 'nativeChat', 'presence.js'));

/**
 * LazyHost with the two bundles it loads replaced: their compiled modules answered from the
 * require cache (what `require('./host')` finds in out/, as the stand-in finds dist/host.js).
 */
function lazyHostWith(modules: { startHost?: (...args: unknown[]) => unknown; startPresence?: (...args: unknown[]) => unknown }) {
  const events: string[] = [];
  const errors: string[] = [];
  const vscode = { Disposable: FakeDisposable, window: { showErrorMessage: async (message: string) => void errors.push(message) } };
  const { LazyHost } = requireWithVscode<typeof LazyHostModule>(vscode, [path.join(SRC, 'lazyHost.js'), path.join(SRC, 'shellVscode.js')]);
  const cached = (file: string, exports: unknown) => (require.cache[file] = { id: file, filename: file, loaded: true, exports } as NodeJS.Module);
  cached(PRESENCE, {
    startPresence:
      modules.startPresence ??
      ((context: unknown, loadHost: unknown) => {
        events.push('presence started');
        return { context, loadHost };
      }),
  });
  cached(HOST, {
    startHost:
      modules.startHost ??
      ((parts: ShellParts, reason: string) => {
        events.push(`host started for ${reason}, presence ${parts.presence ? 'there' : 'missing'}`);
        return { api: {}, flush: async () => [] };
      }),
  });
  const shell = new LazyHost();
  const commandStandIns = [new FakeDisposable(() => events.push('command stand-in disposed'))];
  const parts = { context: { name: 'the context' }, commandStandIns } as unknown as ShellParts;
  shell.parts = parts;
  return { shell, parts, events, errors };
}

describe('LazyHost: the shell loads presence, then the host, each once', () => {
  // Console noise from the failure paths is expected; the tests read what the person sees (the error message).
  let consoleError: typeof console.error;
  beforeEach(() => ((consoleError = console.error), (console.error = () => undefined)));
  afterEach(() => {
    console.error = consoleError;
    delete require.cache[HOST];
    delete require.cache[PRESENCE];
  });

  it('starts presence once, with the extension context and a way to load the host', () => {
    const { shell, parts, events } = lazyHostWith({});
    shell.startPresence(parts);
    shell.startPresence(parts);
    assert.deepEqual(events, ['presence started']);
    const presence = parts.presence as unknown as { context: unknown; loadHost(reason: string): unknown };
    assert.equal(presence.context, parts.context);
    assert.equal(shell.loaded, undefined, 'presence alone does not load the host');
    presence.loadHost('a change of toolbelt.tools.registry');
    assert.deepEqual(events.slice(1), ['command stand-in disposed', 'host started for a change of toolbelt.tools.registry, presence there']);
  });

  it('loads the host once, presence first and the command stand-ins out of the way, whatever asks first', () => {
    const { shell, events } = lazyHostWith({});
    const host = shell.load('toolbelt.openChat');
    assert.equal(shell.load('the toolbelt.tools view'), host);
    assert.equal(shell.loaded, host);
    assert.deepEqual(events, ['command stand-in disposed', 'presence started', 'host started for toolbelt.openChat, presence there']);
  });

  it('a host that cannot start says so once, and every later use gets the same error without trying again', () => {
    let tries = 0;
    const { shell, errors } = lazyHostWith({
      startHost: () => {
        tries++;
        throw new Error('dist/host.js is damaged');
      },
    });
    assert.throws(() => shell.load('toolbelt.openChat'), /dist\/host.js is damaged/);
    assert.throws(() => shell.load('api.tools.list'), /dist\/host.js is damaged/);
    assert.equal(tries, 1);
    assert.deepEqual(errors, ['Toolbelt could not start: dist/host.js is damaged']);
    assert.equal(shell.loaded, undefined);
  });

  it('a presence that cannot start keeps the host from loading, with the same message', () => {
    const { shell, parts, errors, events } = lazyHostWith({
      startPresence: () => {
        throw new Error('dist/presence.js is missing');
      },
    });
    assert.throws(() => shell.startPresence(parts), /dist\/presence.js is missing/);
    assert.throws(() => shell.load('toolbelt.openChat'), /dist\/presence.js is missing/);
    assert.deepEqual(errors, ['Toolbelt could not start: dist/presence.js is missing']);
    assert.equal(events.filter((event) => event.startsWith('host')).length, 0);
  });

  it('refuses a use while the host is starting (a stand-in called from the host\'s own start)', () => {
    let inner: unknown;
    const { shell } = lazyHostWith({
      startHost: () => {
        assert.throws(() => shell.load('the toolbelt.tools view'), (error: Error) => ((inner = error.message), true));
        return { api: {}, flush: async () => [] };
      },
    });
    shell.load('toolbelt.openChat');
    assert.match(String(inner), /still starting; the toolbelt.tools view was used too early/);
  });
});
