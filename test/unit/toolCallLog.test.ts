import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolResult } from '../../src/tools/interface';
import { cutArguments, MAX_ARGUMENT_CHARS, MemoryToolCallLog, parseLines, ToolCallLog, toRecord, type ToolCallRecord } from '../../src/tools/toolCallLog';

function record(overrides: Partial<ToolCallRecord> = {}): ToolCallRecord {
  return { time: '2026-01-02T03:04:05.000Z', chatId: 'chat-1', tool: 'read_file', args: { path: 'a.ts' }, status: 'ok', durationMs: 3, resultChars: 10, approvedBy: 'auto', ...overrides };
}

async function linesOf(file: string): Promise<string[]> {
  const text = await fs.readFile(file, 'utf8');
  assert.ok(text.endsWith('\n'), 'every line is whole');
  return text.slice(0, -1).split('\n');
}

describe('Tool-call log', () => {
  let folder: string;

  beforeEach(async () => {
    folder = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-log-')), 'storage');
  });

  afterEach(async () => {
    await fs.rm(path.dirname(folder), { recursive: true, force: true });
  });

  describe('records', () => {
    it('turns a registry report into a record without the result text', () => {
      const result: ToolResult = { text: 'secret file content', status: 'ok', durationMs: 12.6, approvedBy: 'person' };
      const made = toRecord({ name: 'read_file', args: { path: 'src/a.ts' }, result, startedAt: Date.UTC(2026, 0, 2, 3, 4, 5) }, 'chat-7');
      assert.deepEqual(made, {
        time: '2026-01-02T03:04:05.000Z',
        chatId: 'chat-7',
        tool: 'read_file',
        args: { path: 'src/a.ts' },
        status: 'ok',
        durationMs: 13,
        resultChars: 'secret file content'.length,
        approvedBy: 'person',
      });
      assert.ok(!JSON.stringify(made).includes('secret'), 'no result text in the record');
    });

    it('leaves approvedBy out when the call never reached a tool', () => {
      const made = toRecord({ name: 'nope', args: {}, result: { text: 'Error: tool "nope" not found', status: 'error', durationMs: 0 }, startedAt: 0 }, 'none');
      assert.equal('approvedBy' in made, false);
    });
  });

  describe('cutting arguments', () => {
    it('cuts strings longer than 200 characters, at any depth, and says how long they were', () => {
      const long = 'x'.repeat(5000);
      const cut = cutArguments({ content: long, short: 'ok', n: 4, flag: true, none: null, nested: { deeper: [long, 'fine', { again: long }] } });
      const prefix = 'x'.repeat(MAX_ARGUMENT_CHARS);
      assert.equal(cut.content, `${prefix}… [cut: 5000 characters]`);
      assert.equal(cut.short, 'ok');
      assert.equal(cut.n, 4);
      assert.equal(cut.flag, true);
      assert.equal(cut.none, null);
      const nested = cut.nested as { deeper: [string, string, { again: string }] };
      assert.equal(nested.deeper[0], `${prefix}… [cut: 5000 characters]`);
      assert.equal(nested.deeper[1], 'fine');
      assert.equal(nested.deeper[2].again, `${prefix}… [cut: 5000 characters]`);
    });

    it('keeps a string of exactly 200 characters whole', () => {
      const exact = 'y'.repeat(MAX_ARGUMENT_CHARS);
      assert.equal(cutArguments({ exact }).exact, exact);
    });

    it('does not change the arguments it was given', () => {
      const args = { content: 'z'.repeat(300) };
      cutArguments(args);
      assert.equal(args.content.length, 300);
    });
  });

  describe('the file', () => {
    it('is not created before the first record, and its folder is made on the first write', async () => {
      const log = new ToolCallLog({ folder });
      assert.deepEqual(await log.read(), []);
      await assert.rejects(fs.stat(folder), { code: 'ENOENT' });
      log.append(record());
      await log.flush();
      assert.deepEqual(await linesOf(log.file), [JSON.stringify(record())]);
    });

    it('reads back what it wrote, oldest first, across instances', async () => {
      const first = new ToolCallLog({ folder });
      first.append(record({ tool: 'one' }));
      first.append(record({ tool: 'two' }));
      await first.flush();
      const second = new ToolCallLog({ folder });
      second.append(record({ tool: 'three' }));
      assert.deepEqual((await second.read()).map((r) => r.tool), ['one', 'two', 'three']);
    });

    it('keeps every line whole when many records are appended at once', async () => {
      const log = new ToolCallLog({ folder });
      const big = 'q'.repeat(150);
      for (let i = 0; i < 500; i++) log.append(record({ tool: `t${i}`, args: { big, i } }));
      await log.flush();
      const lines = await linesOf(log.file);
      assert.equal(lines.length, 500);
      assert.deepEqual(lines.map((line) => (JSON.parse(line) as ToolCallRecord).tool), Array.from({ length: 500 }, (_, i) => `t${i}`));
    });

    it('picks up records appended while a write is in flight', async () => {
      const log = new ToolCallLog({ folder });
      log.append(record({ tool: 'early' }));
      await Promise.resolve();
      log.append(record({ tool: 'during' }));
      const flushed = log.flush();
      log.append(record({ tool: 'late' }));
      await flushed;
      assert.deepEqual((await linesOf(log.file)).map((l) => (JSON.parse(l) as ToolCallRecord).tool), ['early', 'during', 'late']);
    });

    it('flush() resolves at once when nothing is queued', async () => {
      const log = new ToolCallLog({ folder });
      await log.flush();
      await assert.rejects(fs.stat(log.file), { code: 'ENOENT' });
    });

    it('rotates by size, keeping one previous file, and reads both back', async () => {
      const lineBytes = Buffer.byteLength(`${JSON.stringify(record({ tool: 't00' }))}\n`);
      const log = new ToolCallLog({ folder, maxBytes: lineBytes * 3 });
      for (let i = 0; i < 10; i++) {
        log.append(record({ tool: `t${String(i).padStart(2, '0')}` }));
        if (i % 4 === 0) await log.flush();
      }
      await log.flush();
      assert.equal(path.basename(log.previousFile), 'tool-calls.1.jsonl');
      const current = await linesOf(log.file);
      const previous = await linesOf(log.previousFile);
      assert.ok(current.length <= 3 && previous.length === 3, `${previous.length} + ${current.length} lines`);
      assert.ok((await fs.stat(log.file)).size <= lineBytes * 3);
      const tools = (await log.read()).map((r) => r.tool);
      assert.deepEqual(tools, ['t03', 't04', 't05', 't06', 't07', 't08', 't09'].slice(-tools.length));
      assert.equal(tools.at(-1), 't09', 'newest last');
      assert.equal(tools.length, previous.length + current.length);
    });

    it('rotates a file already over the limit before appending to it', async () => {
      await fs.mkdir(folder, { recursive: true });
      const log = new ToolCallLog({ folder, maxBytes: 100 });
      await fs.writeFile(log.file, `${JSON.stringify(record({ tool: 'old', args: { pad: 'p'.repeat(200) } }))}\n`);
      log.append(record({ tool: 'new' }));
      await log.flush();
      assert.deepEqual((await linesOf(log.file)).map((l) => (JSON.parse(l) as ToolCallRecord).tool), ['new']);
      assert.deepEqual((await linesOf(log.previousFile)).map((l) => (JSON.parse(l) as ToolCallRecord).tool), ['old']);
    });

    it('skips torn, edited and foreign lines when reading', async () => {
      await fs.mkdir(folder, { recursive: true });
      const log = new ToolCallLog({ folder });
      const good = JSON.stringify(record({ tool: 'good' }));
      await fs.writeFile(log.previousFile, `${JSON.stringify(record({ tool: 'older' }))}\n{"tool": "tor`);
      await fs.writeFile(log.file, `${good}\nnot json\n[1,2]\n{"tool":"x"}\n\n${JSON.stringify(record({ tool: 'last' }))}\n`);
      assert.deepEqual((await log.read()).map((r) => r.tool), ['older', 'good', 'last']);
      assert.deepEqual(parseLines('null\n"text"\n42'), []);
    });

    it('reports a failed write and goes on with the next records', async () => {
      await fs.mkdir(path.dirname(folder), { recursive: true });
      await fs.writeFile(folder, 'a file where the folder should be');
      const errors: unknown[] = [];
      const log = new ToolCallLog({ folder, onError: (error) => errors.push(error) });
      log.append(record());
      await log.flush();
      assert.equal(errors.length, 1);
      await fs.rm(folder);
      log.append(record({ tool: 'after' }));
      await log.flush();
      assert.deepEqual((await log.read()).map((r) => r.tool), ['after']);
    });
  });

  describe('in memory', () => {
    it('keeps the latest records up to its limit', async () => {
      const log = new MemoryToolCallLog(2);
      for (const tool of ['a', 'b', 'c']) log.append(record({ tool }));
      await log.flush();
      assert.deepEqual((await log.read()).map((r) => r.tool), ['b', 'c']);
    });
  });
});
