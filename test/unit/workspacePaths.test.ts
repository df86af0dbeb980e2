import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import type { ToolRegistry } from '../../src/tools/registry';
import { isProtectedPath } from '../../src/tools/protectedPaths';
import { resolveWorkspacePath } from '../../src/tools/workspacePaths';
import { bundledRipgrep, contextFor, TempWorkspace } from '../support/workspace';

const SECRET = 'TOP SECRET: never leave the workspace';

/** Every file under `dir` with its content, to prove nothing outside changed. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, full)] = entry.isFile() ? await fs.readFile(full, 'utf8') : entry.isDirectory() ? '<dir>' : '<other>';
  }
  return out;
}

describe('workspace path guard', () => {
  let ws: TempWorkspace;
  let outside: string;
  let registry: ToolRegistry;
  let before: Record<string, string>;

  beforeEach(async () => {
    ws = await TempWorkspace.create({ 'a.txt': 'inside', 'sub/inner.txt': 'inner file' });
    outside = path.join(ws.parent, 'outside');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'secret.txt'), SECRET);
    await fs.mkdir(path.join(ws.parent, 'workspace-evil'));
    await fs.writeFile(path.join(ws.parent, 'workspace-evil', 'x.txt'), SECRET);
    await fs.symlink(outside, ws.path('link-out'));
    await fs.symlink(path.join(outside, 'secret.txt'), ws.path('file-link'));
    await fs.symlink('../outside/new.txt', ws.path('dangling'));
    await fs.symlink('../outside', ws.path('hop'));
    await fs.symlink('hop', ws.path('chain'));
    await fs.symlink('sub', ws.path('inner-link'));
    registry = createDefaultToolRegistry(contextFor(ws, { rgPath: bundledRipgrep() }));
    registry.enable('remove');
    before = await snapshot(ws.parent).then((all) => Object.fromEntries(Object.entries(all).filter(([k]) => !k.startsWith('workspace/'))));
  });

  afterEach(async () => {
    const after = Object.fromEntries(Object.entries(await snapshot(ws.parent)).filter(([k]) => !k.startsWith('workspace/')));
    assert.deepEqual(after, before, 'nothing outside the workspace was created, changed or deleted');
    await ws.dispose();
  });

  const attempts: [string, string, Record<string, unknown>][] = [
    ['.. in a relative read', 'read_file', { path: '../outside/secret.txt' }],
    ['.. far up', 'read_file', { path: '../../../../../../etc/passwd' }],
    ['an absolute path outside', 'read_file', { path: '/etc/passwd' }],
    ['.. hidden after a real folder', 'read_file', { path: 'sub/../../outside/secret.txt' }],
    ['./.. prefix', 'list_dir', { path: './..' }],
    ['a sibling folder sharing the name prefix', 'read_file', { path: '<parent>/workspace-evil/x.txt' }],
    ['a directory symlink leading out', 'read_file', { path: 'link-out/secret.txt' }],
    ['a file symlink leading out', 'read_file', { path: 'file-link' }],
    ['a chain of symlinks leading out', 'read_file', { path: 'chain/secret.txt' }],
    ['listing through a symlink', 'list_dir', { path: 'link-out' }],
    ['writing through a directory symlink', 'write_file', { path: 'link-out/new.txt', content: 'pwned' }],
    ['overwriting through a file symlink', 'write_file', { path: 'file-link', content: 'pwned' }],
    ['writing a dangling symlink that points out', 'write_file', { path: 'dangling', content: 'pwned' }],
    ['mkdir through a symlink', 'mkdir', { path: 'link-out/newdir' }],
    ['mkdir with ..', 'mkdir', { path: '../escape-dir' }],
    ['removing through a symlink', 'remove', { path: 'link-out/secret.txt' }],
    ['removing the parent', 'remove', { path: '..', recursive: true }],
    ['moving a file in from outside', 'move', { source: 'link-out/secret.txt', destination: 'stolen.txt' }],
    ['moving a file out with ..', 'move', { source: 'a.txt', destination: '../outside/a.txt' }],
    ['moving a file out through a symlink', 'move', { source: 'a.txt', destination: 'link-out/a.txt' }],
    ['a NUL byte', 'read_file', { path: 'a.txt\0/../../outside/secret.txt' }],
    ['a home-relative path', 'read_file', { path: '~/.bashrc' }],
    ['a file URL outside', 'read_file', { path: 'file:///etc/passwd' }],
    ['an absolute path to the outside secret', 'read_file', { path: '<parent>/outside/secret.txt' }],
  ];

  for (const [label, tool, rawArgs] of attempts) {
    it(`refuses ${label} (${tool})`, async () => {
      const args = JSON.parse(JSON.stringify(rawArgs).replaceAll('<parent>', ws.parent));
      const result = await registry.execute(tool, args);
      assert.match(result, /^Error executing /, result);
      assert.match(result, /outside the workspace|symbolic link|NUL byte|home directory|Refusing/, result);
      assert.doesNotMatch(result, /TOP SECRET/);
      assert.doesNotMatch(result, /root:/);
    });
  }

  it('refuses a session context file configured outside the workspace', async () => {
    const escaping = createDefaultToolRegistry(contextFor(ws, { sessionContextFilePath: '../outside/context.md' }));
    assert.match(await escaping.execute('save_session_context', { reason: 'x' }), /outside the workspace/);
    const throughLink = createDefaultToolRegistry(contextFor(ws, { sessionContextFilePath: 'link-out/context.md' }));
    assert.match(await throughLink.execute('save_session_context', { reason: 'x' }), /symbolic link/);
  });

  it('does not follow symlinks out when searching', async () => {
    for (const rgPath of [bundledRipgrep(), undefined]) {
      const searching = createDefaultToolRegistry(contextFor(ws, { rgPath }));
      assert.match(await searching.execute('search_text', { pattern: 'TOP SECRET' }), /^No matches/);
      assert.doesNotMatch(await searching.execute('search_files', { pattern: '**/*' }), /secret/);
    }
  });

  it('treats look-alike names as names, not escapes', async () => {
    for (const p of ['%2e%2e/outside/secret.txt', '..\\outside\\secret.txt', '....//outside/secret.txt']) {
      const result = await registry.execute('read_file', { path: p });
      assert.match(result, /does not exist/, p);
    }
  });

  it('allows what stays inside: .. that comes back, inner symlinks, absolute inside paths', async () => {
    assert.equal(await registry.execute('read_file', { path: 'sub/../a.txt' }), 'inside');
    assert.equal(await registry.execute('read_file', { path: 'inner-link/inner.txt' }), 'inner file');
    assert.equal(await registry.execute('read_file', { path: ws.path('sub', 'inner.txt') }), 'inner file');
    assert.equal(await registry.execute('read_file', { path: `file://${ws.path('a.txt')}` }), 'inside');
    assert.equal(await registry.execute('read_file', { path: '  a.txt  ' }), 'inside');
  });

  it('removes a symlink that points out without touching its target', async () => {
    assert.match(await registry.execute('remove', { path: 'file-link' }), /Deleted file "file-link"/);
    assert.equal(await ws.exists('file-link'), false);
  });

  it('resolves to real paths and reports workspace-relative names', async () => {
    const ctx = contextFor(ws);
    const resolved = await resolveWorkspacePath(ctx, 'inner-link/new/deep.txt');
    assert.equal(resolved.absolute, ws.path('sub', 'new', 'deep.txt'));
    assert.equal(resolved.relative, 'sub/new/deep.txt');
    assert.equal(resolved.exists, false);
    assert.equal((await resolveWorkspacePath(ctx, '.')).display, '.');
  });

  it('reaches other roots of a multi-root workspace by folder name, and only those', async () => {
    const second = path.join(ws.parent, 'second');
    await fs.mkdir(second);
    await fs.writeFile(path.join(second, 'b.txt'), 'from the second root');
    before['second'] = '<dir>';
    before['second/b.txt'] = 'from the second root';
    const multi = createDefaultToolRegistry(contextFor(ws, { workspaceRoots: { workspace: ws.root, second } }));
    assert.equal(await multi.execute('read_file', { path: 'second/b.txt' }), 'from the second root');
    assert.equal(await multi.execute('read_file', { path: path.join(second, 'b.txt') }), 'from the second root');
    assert.match(await multi.execute('read_file', { path: 'second/../outside/secret.txt' }), /outside the workspace/);
    assert.match(await multi.execute('list_dir', { path: 'second' }), /^b\.txt$/);
  });
});

describe('protected paths', () => {
  let ws: TempWorkspace;
  beforeEach(async () => {
    ws = await TempWorkspace.create({ '.git/config': '[core]', 'a.txt': 'a' });
  });
  afterEach(() => ws.dispose());

  it('recognises .git/, .vscode/ and *.code-workspace at any depth', () => {
    for (const p of ['.git/config', '.git', 'sub/.git/hooks/pre-commit', '.vscode/settings.json', 'project.code-workspace', 'x/Y.CODE-WORKSPACE', '.GIT/config']) {
      assert.equal(isProtectedPath(p), true, p);
    }
    for (const p of ['git/config', '.github/workflows/ci.yml', 'src/.gitignore', 'vscode/x', 'code-workspace.md']) {
      assert.equal(isProtectedPath(p), false, p);
    }
  });

  it('recognises every agent\'s own configuration at the workspace\'s root (its hooks live there)', () => {
    for (const p of ['.claude/settings.json', '.codex/hooks.json', '.gemini/settings.json', '.cursor/hooks.json', '.github/hooks/toolbelt.json', '.mcp.json', '.Claude/x', '.claude']) {
      assert.equal(isProtectedPath(p), true, p);
    }
    for (const p of ['src/.claude/x', '.mcp.json.bak', '.github/hooksy', 'docs/.cursor']) {
      assert.equal(isProtectedPath(p), false, p);
    }
  });

  it('refuses protected writes when no one can be asked', async () => {
    const registry = createDefaultToolRegistry(contextFor(ws));
    for (const [tool, args] of [
      ['write_file', { path: '.git/config', content: 'evil' }],
      ['write_file', { path: '.vscode/settings.json', content: '{}' }],
      ['write_file', { path: 'team.code-workspace', content: '{}' }],
      ['mkdir', { path: '.git/hooks' }],
      ['move', { source: 'a.txt', destination: '.vscode/a.txt' }],
    ] as const) {
      const result = await registry.execute(tool, args);
      assert.match(result, /protected path/, `${tool} ${JSON.stringify(args)}`);
    }
    assert.equal(await ws.read('.git/config'), '[core]');
    assert.equal(await ws.exists('.vscode'), false);
    assert.equal(await ws.exists('a.txt'), true);
  });

  it('asks the user, and writes only on approval', async () => {
    const denied = contextFor(ws, { answer: false });
    assert.match(await createDefaultToolRegistry(denied).execute('write_file', { path: '.git/config', content: 'evil' }), /declined/);
    assert.equal(await ws.read('.git/config'), '[core]');
    assert.equal(denied.confirmations.length, 1);
    assert.equal(denied.confirmations[0].reason, 'protected');
    assert.deepEqual(denied.confirmations[0].paths, ['.git/config']);

    const approved = contextFor(ws, { answer: true });
    assert.match(await createDefaultToolRegistry(approved).execute('write_file', { path: '.git/config', content: 'ok' }), /Overwrote/);
    assert.equal(await ws.read('.git/config'), 'ok');
  });

  it('does not ask for ordinary writes', async () => {
    const ctx = contextFor(ws, { answer: false });
    assert.match(await createDefaultToolRegistry(ctx).execute('write_file', { path: 'src/new.ts', content: 'x' }), /Created/);
    assert.equal(ctx.confirmations.length, 0);
  });
});
