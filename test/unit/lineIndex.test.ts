import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { clearLineIndexes, INDEXED_FILES, indexedFileCount, LINES_PER_CHECKPOINT, readLineWindow, type LineWindowRequest } from '../../src/tools/lineIndex';

/** What a window must hold: lines split at "\n", a "\r" before it dropped, no empty line after a final "\n". */
function expected(text: string, offset: number, limit: number, maxLineChars: number): { lines: string[]; total: number } {
  const all = text === '' ? [] : text.split('\n');
  if (text.endsWith('\n')) all.pop();
  const lines = all.slice(offset - 1, offset - 1 + limit).map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l).slice(0, maxLineChars));
  return { lines, total: all.length };
}

describe('line index (read_file windows of big files)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-lines-'));
    clearLineIndexes();
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  async function windowOf(name: string, request: Partial<LineWindowRequest> & { offset: number }, stat?: import('node:fs').Stats) {
    const file = path.join(dir, name);
    const handle = await fs.open(file, 'r');
    try {
      return await readLineWindow(handle, file, stat ?? (await handle.stat()), { limit: 50, maxLineChars: 1000, maxChars: 1_000_000, ...request });
    } finally {
      await handle.close();
    }
  }

  const numbered = (n: number, end = '\n') => Array.from({ length: n }, (_, i) => `line ${i + 1} ${'é'.repeat(i % 7)}`).join(end);
  const files: Record<string, string> = {
    'lf.txt': numbered(4321) + '\n',
    'crlf.txt': numbered(3456, '\r\n') + '\r\n',
    'no-final-newline.txt': numbered(2500),
    'blank-lines.txt': '\n'.repeat(2600),
    'huge-line.txt': `first\n${'x'.repeat(700_000)}\nthird\n${numbered(1500)}`,
    'one-line.txt': 'only',
    'empty.txt': '',
  };

  for (const [name, text] of Object.entries(files)) {
    it(`gives the same lines as splitting the whole file: ${name}`, async () => {
      await fs.writeFile(path.join(dir, name), text);
      const total = expected(text, 1, 1, 1).total;
      // In a shuffled order, so windows come both from checkpoints and from scans past them.
      const offsets = [total, 1, Math.ceil(total / 2), LINES_PER_CHECKPOINT, LINES_PER_CHECKPOINT + 1, total - 3, 2, total + 1, total + 50].filter((o) => o >= 1);
      for (const offset of offsets) {
        for (const limit of [1, 7, 2000]) {
          const got = await windowOf(name, { offset, limit });
          const want = expected(text, offset, limit, 1000);
          assert.deepEqual(got.lines, want.lines, `${name} offset ${offset} limit ${limit}`);
          if (got.totalLines !== undefined) assert.equal(got.totalLines, want.total, `${name} total`);
        }
      }
      // The end was read at least once, so the length is known from then on.
      assert.equal((await windowOf(name, { offset: 1, limit: 1 })).totalLines, total);
    });
  }

  it('reads only from the nearest checkpoint once the file was read to there', async () => {
    const text = numbered(60_000) + '\n';
    await fs.writeFile(path.join(dir, 'big.txt'), text);
    const first = await windowOf('big.txt', { offset: 59_000, limit: 20 });
    assert.ok(first.bytesRead >= Buffer.byteLength(text) * 0.9, `the first call scans to the line (${first.bytesRead} bytes)`);
    const again = await windowOf('big.txt', { offset: 58_500, limit: 20 });
    assert.deepEqual(again.lines, expected(text, 58_500, 20, 1000).lines);
    assert.ok(again.bytesRead <= 256 * 1024 + 1, `the second call reads one chunk from a checkpoint (${again.bytesRead} bytes)`);
    const past = await windowOf('big.txt', { offset: 70_000 });
    assert.deepEqual([past.lines, past.totalLines], [[], 60_000]);
    assert.ok(past.bytesRead < 256 * 1024, `past the end: read on from the last checkpoint only (${past.bytesRead} bytes)`);
    assert.equal((await windowOf('big.txt', { offset: 70_000 })).bytesRead, 0, 'past the known end: nothing read');
  });

  it('a file that changed between two calls is read as it is now', async () => {
    const file = path.join(dir, 'changing.txt');
    const before = numbered(5000) + '\n';
    await fs.writeFile(file, before);
    assert.deepEqual((await windowOf('changing.txt', { offset: 4000, limit: 3 })).lines, expected(before, 4000, 3, 1000).lines);
    const now = Array.from({ length: 9000 }, (_, i) => `new ${i + 1}`).join('\n');
    await fs.writeFile(file, now);
    const got = await windowOf('changing.txt', { offset: 4000, limit: 3 });
    assert.deepEqual(got.lines, ['new 4000', 'new 4001', 'new 4002']);
    assert.equal((await windowOf('changing.txt', { offset: 8999 })).totalLines, 9000);
  });

  it('a change its size and times do not show is caught by a checkpoint not after a line end', async () => {
    const file = path.join(dir, 'same-size.txt');
    await fs.writeFile(file, 'a\n'.repeat(5000));
    const stale = await fs.stat(file);
    await windowOf('same-size.txt', { offset: 4500, limit: 1 });
    // Same size, other line lengths: the old checkpoint at byte 2000 now falls inside a line.
    const now = 'x' + 'bb\n'.repeat(3333);
    assert.equal(Buffer.byteLength(now), stale.size);
    await fs.writeFile(file, now);
    const got = await windowOf('same-size.txt', { offset: 1500, limit: 2 }, stale);
    assert.deepEqual(got.lines, expected(now, 1500, 2, 1000).lines);
  });

  it('keeps the part of a huge line the cut needs, and no more', async () => {
    await fs.writeFile(path.join(dir, 'wide.txt'), `${'é'.repeat(3_000_000)}\nnext\n`);
    const got = await windowOf('wide.txt', { offset: 1, limit: 2, maxLineChars: 100 });
    assert.deepEqual(got.lines, ['é'.repeat(100), 'next']);
    assert.equal(got.totalLines, 2);
  });

  it('stops at the character budget', async () => {
    await fs.writeFile(path.join(dir, 'chars.txt'), `${'y'.repeat(90)}\n`.repeat(100));
    const got = await windowOf('chars.txt', { offset: 1, limit: 100, maxChars: 1000 });
    assert.equal(got.lines.length, 11);
  });

  it(`keeps the index of at most ${INDEXED_FILES} files`, async () => {
    for (let i = 0; i < INDEXED_FILES + 3; i++) {
      await fs.writeFile(path.join(dir, `f${i}.txt`), numbered(10));
      await windowOf(`f${i}.txt`, { offset: 5 });
    }
    assert.equal(indexedFileCount(), INDEXED_FILES);
  });

  it('stops when the signal is aborted', async () => {
    await fs.writeFile(path.join(dir, 'stop.txt'), numbered(100));
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await assert.rejects(windowOf('stop.txt', { offset: 50, signal: controller.signal }), /stopped/);
  });
});
