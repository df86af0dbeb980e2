import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { LIMITS } from '../../src/tools/manifest';
import type { ToolRegistry } from '../../src/tools/registry';
import { contextFor, TempWorkspace, type TestContext } from '../support/workspace';

const lines = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `line ${i + from}`).join('\n');

describe('file tools', () => {
  let ws: TempWorkspace;
  let ctx: TestContext;
  let registry: ToolRegistry;
  beforeEach(async () => {
    ws = await TempWorkspace.create({
      'hello.txt': 'hello world\n',
      'crlf.txt': 'one\r\ntwo\r\n',
      'src/index.ts': 'export {};\n',
      'src/util/math.ts': 'export const two = 2;\n',
      'long.txt': lines(5000),
      'empty.txt': '',
    });
    ctx = contextFor(ws, { answer: true });
    registry = createDefaultToolRegistry(ctx);
    registry.enable('remove');
  });
  afterEach(() => ws.dispose());

  describe('read_file', () => {
    it('returns a small file exactly as it is', async () => {
      assert.equal(await registry.execute('read_file', { path: 'hello.txt' }), 'hello world\n');
      assert.equal(await registry.execute('read_file', { path: 'crlf.txt' }), 'one\r\ntwo\r\n');
      assert.equal(await registry.execute('read_file', { path: 'empty.txt' }), '');
    });

    it('pages by lines with a 1-based offset and a limit, saying where to go on', async () => {
      const page = await registry.execute('read_file', { path: 'long.txt', offset: 10, limit: 3 });
      assert.equal(page, 'line 10\nline 11\nline 12\n\n[Showing lines 10-12 of 5000 of "long.txt". To read on, call read_file with offset 13.]');
      const end = await registry.execute('read_file', { path: 'long.txt', offset: 4999 });
      assert.equal(end, 'line 4999\nline 5000\n\n[Showing lines 4999-5000 of 5000 of "long.txt".]');
      assert.match(await registry.execute('read_file', { path: 'long.txt', offset: 9000 }), /has 5000 lines; offset 9000 is past the end/);
    });

    it(`truncates a long file to ${LIMITS.readFileDefaultLines} lines with a notice`, async () => {
      const result = await registry.execute('read_file', { path: 'long.txt' });
      const [body, notice] = result.split('\n\n[');
      assert.equal(body.split('\n').length, LIMITS.readFileDefaultLines);
      assert.match(notice, /Showing lines 1-2000 of 5000 .*offset 2001/);
    });

    it('caps the characters returned, however long the lines', async () => {
      await ws.write({ 'wide.txt': Array.from({ length: 100 }, () => 'x'.repeat(5000)).join('\n') });
      const result = await registry.execute('read_file', { path: 'wide.txt' });
      assert.ok(result.length < LIMITS.readFileMaxChars + 500, `${result.length} chars`);
      assert.match(result, /\[Showing lines 1-\d+ of 100 .*To read on/);
      await ws.write({ 'minified.js': 'y'.repeat(500_000) });
      const minified = await registry.execute('read_file', { path: 'minified.js' });
      assert.ok(minified.length < LIMITS.readFileMaxChars + 500);
      assert.match(minified, /line cut at/);
    });

    it('streams a file too big to read whole and stops at the window', async () => {
      const big = ws.path('big.log');
      const handle = await fs.open(big, 'w');
      const chunk = Array.from({ length: 10_000 }, (_, i) => `entry ${i} ${'.'.repeat(200)}`).join('\n') + '\n';
      for (let i = 0; i < 12; i++) await handle.write(chunk);
      await handle.close();
      const result = await registry.execute('read_file', { path: 'big.log', offset: 3, limit: 2 });
      assert.match(result, /^entry 2 \.+\nentry 3 \.+\n\n\[Showing lines 3-4 of "big\.log, 2[45]\.\d MB"\. To read on, call read_file with offset 5\.\]$/);
    });

    it('pages near the end of a file too big to read whole, then knows its length; a rewrite between calls is seen', async () => {
      const big = ws.path('big.log');
      const handle = await fs.open(big, 'w');
      const chunk = (n: number) => Array.from({ length: 10_000 }, (_, i) => `entry ${n * 10_000 + i} ${'.'.repeat(200)}`).join('\r\n') + '\r\n';
      for (let i = 0; i < 11; i++) await handle.write(chunk(i));
      await handle.write('last line, no newline');
      await handle.close();
      const end = await registry.execute('read_file', { path: 'big.log', offset: 110_000 });
      assert.match(end, /^entry 109999 \.+\nlast line, no newline\n\n\[Showing lines 110000-110001 of 110001 of "big\.log, 2\d\.\d MB"\.\]$/);
      const middle = await registry.execute('read_file', { path: 'big.log', offset: 55_001, limit: 1 });
      assert.match(middle, /^entry 55000 \.+\n\n\[Showing lines 55001-55001 of 110001 of "big\.log, 2\d\.\d MB"\. To read on, call read_file with offset 55002\.\]$/);
      await fs.writeFile(big, `fresh\n${'z'.repeat(21 * 1024 * 1024)}\nafter\n`);
      const rewritten = await registry.execute('read_file', { path: 'big.log', offset: 3 });
      assert.match(rewritten, /^after\n\n\[Showing lines 3-3 of 3 of "big\.log, 21\.0 MB"\.\]$/);
      assert.match(await registry.execute('read_file', { path: 'big.log', offset: 55_001 }), /has 3 lines; offset 55001 is past the end/);
    });

    it('reads other encodings and raw bytes', async () => {
      await fs.writeFile(ws.path('latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      assert.equal(await registry.execute('read_file', { path: 'latin1.txt', encoding: 'latin1' }), 'café');
      assert.equal(await registry.execute('read_file', { path: 'hello.txt', encoding: 'base64' }), Buffer.from('hello world\n').toString('base64'));
      assert.equal(await registry.execute('read_file', { path: 'hello.txt', encoding: 'hex' }), Buffer.from('hello world\n').toString('hex'));
      await fs.writeFile(ws.path('utf16.txt'), Buffer.from('hi there', 'utf16le'));
      assert.equal(await registry.execute('read_file', { path: 'utf16.txt', encoding: 'utf16le' }), 'hi there');
    });

    it('refuses binary files politely and offers base64', async () => {
      await fs.writeFile(ws.path('image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 1, 2, 3]));
      const result = await registry.execute('read_file', { path: 'image.png' });
      assert.match(result, /looks like a binary file \(11 B\).*base64/);
      assert.doesNotMatch(result, /^Error/);
    });

    it('refuses a FIFO instead of blocking on it', async () => {
      const { execFileSync } = await import('node:child_process');
      execFileSync('mkfifo', [ws.path('pipe')]);
      assert.match(await registry.execute('read_file', { path: 'pipe' }), /is not a regular file/);
    });

    it('says clearly when the path is missing or a directory', async () => {
      assert.equal(await registry.execute('read_file', { path: 'nope.txt' }), 'Error executing read_file: File "nope.txt" does not exist.');
      assert.match(await registry.execute('read_file', { path: 'src' }), /"src" is a directory; use list_dir/);
    });
  });

  describe('write_file', () => {
    it('creates a file and its missing parents', async () => {
      assert.equal(await registry.execute('write_file', { path: 'a/b/c/new.md', content: '# New\n' }), 'Created "a/b/c/new.md" (6 B).');
      assert.equal(await ws.read('a/b/c/new.md'), '# New\n');
    });

    it('overwrites atomically, keeping the file mode and leaving no temp files', async () => {
      await fs.chmod(ws.path('hello.txt'), 0o750);
      assert.match(await registry.execute('write_file', { path: 'hello.txt', content: 'replaced' }), /^Overwrote "hello.txt"/);
      assert.equal(await ws.read('hello.txt'), 'replaced');
      assert.equal((await fs.stat(ws.path('hello.txt'))).mode & 0o777, 0o750);
      assert.deepEqual((await fs.readdir(ws.root)).filter((n) => n.endsWith('.tmp')), []);
    });

    it('never leaves a half-written file: readers see the old or the new content', async () => {
      const big = 'z'.repeat(5_000_000);
      const writing = registry.execute('write_file', { path: 'hello.txt', content: big });
      const seen = new Set<number>();
      for (let i = 0; i < 30; i++) seen.add((await fs.readFile(ws.path('hello.txt'), 'utf8')).length);
      await writing;
      seen.add((await ws.read('hello.txt')).length);
      assert.deepEqual([...seen].filter((n) => n !== 12 && n !== big.length), []);
    });

    it('writes unicode content and empty files', async () => {
      await registry.execute('write_file', { path: 'u.txt', content: 'naïve ☕ 日本' });
      assert.equal(await ws.read('u.txt'), 'naïve ☕ 日本');
      assert.match(await registry.execute('write_file', { path: 'e.txt', content: '' }), /Created "e.txt" \(0 B\)/);
    });

    it('refuses to replace a directory', async () => {
      assert.match(await registry.execute('write_file', { path: 'src', content: 'x' }), /is a directory/);
      assert.equal((await fs.stat(ws.path('src'))).isDirectory(), true);
    });

    it('needs content', async () => {
      assert.match(await registry.execute('write_file', { path: 'x.txt' }), /"content" is required/);
      assert.equal(await ws.exists('x.txt'), false);
    });
  });

  describe('list_dir', () => {
    it('lists the root by default, directories first with a slash', async () => {
      await fs.symlink('src', ws.path('src-link'));
      const listing = await registry.execute('list_dir', {});
      assert.equal(listing, 'src/\nsrc-link/ (symlink)\ncrlf.txt\nempty.txt\nhello.txt\nlong.txt');
      assert.equal(await registry.execute('list_dir', { path: 'src' }), 'util/\nindex.ts');
    });

    it('says when a directory is empty, missing, or a file', async () => {
      await fs.mkdir(ws.path('void'));
      assert.equal(await registry.execute('list_dir', { path: 'void' }), '"void" is empty.');
      assert.match(await registry.execute('list_dir', { path: 'nowhere' }), /Directory "nowhere" does not exist/);
      assert.match(await registry.execute('list_dir', { path: 'hello.txt' }), /is a file/);
    });

    it(`caps the listing at ${LIMITS.listDirMaxEntries} entries`, async () => {
      await fs.mkdir(ws.path('many'));
      await Promise.all(Array.from({ length: LIMITS.listDirMaxEntries + 5 }, (_, i) => fs.writeFile(ws.path('many', `f${i}.txt`), '')));
      const listing = (await registry.execute('list_dir', { path: 'many' })).split('\n');
      assert.equal(listing.length, LIMITS.listDirMaxEntries + 1);
      assert.match(listing[listing.length - 1], /5 more entries not shown/);
      assert.equal(listing[0], 'f0.txt');
      assert.equal(listing[2], 'f2.txt', 'numeric order');
    });
  });

  describe('mkdir', () => {
    it('creates nested directories and accepts existing ones', async () => {
      assert.equal(await registry.execute('mkdir', { path: 'x/y/z' }), 'Created directory "x/y/z".');
      assert.equal((await fs.stat(ws.path('x/y/z'))).isDirectory(), true);
      assert.equal(await registry.execute('mkdir', { path: 'x/y' }), 'Directory "x/y" already exists.');
      assert.match(await registry.execute('mkdir', { path: 'hello.txt' }), /exists and is a file/);
    });
  });

  describe('remove', () => {
    it('asks before every call and deletes a file on approval', async () => {
      assert.equal(await registry.execute('remove', { path: 'hello.txt' }), 'Deleted file "hello.txt".');
      assert.equal(await ws.exists('hello.txt'), false);
      assert.equal(ctx.confirmations.length, 1);
      assert.equal(ctx.confirmations[0].tool, 'remove');
      assert.equal(ctx.confirmations[0].reason, 'destructive');
      assert.equal(ctx.confirmations[0].summary, 'Delete hello.txt');
    });

    it('keeps the file when the user declines', async () => {
      const declining = createDefaultToolRegistry(contextFor(ws, { answer: false }));
      declining.enable('remove');
      assert.match(await declining.execute('remove', { path: 'hello.txt' }), /declined: Delete hello.txt/);
      assert.equal(await ws.exists('hello.txt'), true);
    });

    it('runs without asking when no confirm hook exists (enabling it was the consent)', async () => {
      const unattended = createDefaultToolRegistry(contextFor(ws));
      unattended.enable('remove');
      assert.match(await unattended.execute('remove', { path: 'hello.txt' }), /Deleted/);
    });

    it('needs recursive for a non-empty directory, before asking anyone', async () => {
      assert.match(await registry.execute('remove', { path: 'src' }), /not empty; pass recursive: true/);
      assert.equal(ctx.confirmations.length, 0);
      assert.equal(await registry.execute('remove', { path: 'src', recursive: true }), 'Deleted directory "src".');
      assert.equal(await ws.exists('src'), false);
      assert.match(ctx.confirmations[0].summary, /Delete directory src and everything in it/);
      await fs.mkdir(ws.path('emptydir'));
      assert.equal(await registry.execute('remove', { path: 'emptydir' }), 'Deleted directory "emptydir".');
    });

    it('refuses the workspace root and missing paths', async () => {
      for (const p of ['.', './', ws.root]) assert.match(await registry.execute('remove', { path: p, recursive: true }), /workspace folder itself/);
      assert.match(await registry.execute('remove', { path: 'ghost' }), /does not exist/);
      assert.equal(await ws.exists('hello.txt'), true);
    });

    it('is disabled until enabled', async () => {
      const fresh = createDefaultToolRegistry(contextFor(ws));
      assert.match(await fresh.execute('remove', { path: 'hello.txt' }), /not available/);
      assert.equal(await ws.exists('hello.txt'), true);
    });
  });

  describe('move', () => {
    it('moves a file, creating the destination parents', async () => {
      assert.equal(await registry.execute('move', { source: 'hello.txt', destination: 'docs/greeting.txt' }), 'Moved "hello.txt" to "docs/greeting.txt".');
      assert.equal(await ws.read('docs/greeting.txt'), 'hello world\n');
      assert.equal(await ws.exists('hello.txt'), false);
    });

    it('renames a directory', async () => {
      await registry.execute('move', { source: 'src', destination: 'lib' });
      assert.equal(await ws.read('lib/util/math.ts'), 'export const two = 2;\n');
    });

    it('refuses to overwrite unless told to', async () => {
      assert.match(await registry.execute('move', { source: 'hello.txt', destination: 'long.txt' }), /already exists; pass overwrite: true/);
      assert.equal(await ws.read('hello.txt'), 'hello world\n');
      assert.match(await registry.execute('move', { source: 'hello.txt', destination: 'long.txt', overwrite: true }), /Moved/);
      assert.equal(await ws.read('long.txt'), 'hello world\n');
    });

    it('refuses impossible moves with a clear reason', async () => {
      assert.match(await registry.execute('move', { source: 'missing', destination: 'x' }), /Source "missing" does not exist/);
      assert.match(await registry.execute('move', { source: 'src', destination: 'src/util/src' }), /into itself/);
      assert.match(await registry.execute('move', { source: 'hello.txt', destination: './hello.txt' }), /same path/);
      assert.match(await registry.execute('move', { source: '.', destination: 'elsewhere' }), /workspace folder itself/);
      assert.match(await registry.execute('move', { source: 'hello.txt' }), /"destination" is required/);
    });
  });

  describe('save_session_context', () => {
    it('writes the live system prompt and session context to the configured file, creating parents', async () => {
      ctx.systemPrompt = 'Be brief.';
      ctx.sessionContext = '- user asked to rename foo\n- renamed in 3 files';
      assert.match(await registry.execute('save_session_context', { reason: 'end of step 1' }), /saved to "\.toolbelt\/session-context\.md"/);
      const saved = await ws.read('.toolbelt/session-context.md');
      assert.match(saved, /^# Session context/);
      assert.match(saved, /Reason: end of step 1/);
      assert.match(saved, /## System prompt\n\nBe brief\./);
      assert.match(saved, /renamed in 3 files/);
      ctx.sessionContext = '- later state';
      await registry.execute('save_session_context', { reason: 'again' });
      const later = await ws.read('.toolbelt/session-context.md');
      assert.match(later, /later state/);
      assert.doesNotMatch(later, /renamed in 3 files/);
    });

    it('follows a changed file path (the context is read live)', async () => {
      ctx.sessionContextFilePath = 'notes/ctx.md';
      await registry.execute('save_session_context', { reason: 'moved' });
      assert.match(await ws.read('notes/ctx.md'), /Reason: moved/);
    });
  });
});
