import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createDefaultToolRegistry } from '../../../src/tools/factory';
import type { ToolRunReport } from '../../../src/tools/registry';
import { DEFAULT_SENSITIVE_GLOBS } from '../../../src/tools/sensitiveFiles';
import { MAX_RECORD_BYTES, MemoryToolCallLog, ToolCallLog, toRecord, type ToolCallRecord } from '../../../src/tools/toolCallLog';
import { contextFor, TempWorkspace } from '../../support/workspace';

const SECRET = 'sk-live-4f9a1c2e7b3d8a6f';

function report(name: string, args: Record<string, unknown>): ToolRunReport {
  return { name, args, result: { text: 'done', status: 'ok', durationMs: 1, approvedBy: 'person' }, startedAt: Date.UTC(2026, 0, 1) };
}

/** Each line of the log file, as bytes on disk. */
async function lineBytes(file: string): Promise<number[]> {
  const text = await fs.readFile(file, 'utf8');
  return text.split('\n').filter(Boolean).map((line) => Buffer.byteLength(`${line}\n`));
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 'x'.repeat(500) };
  for (let i = 0; i < depth; i++) value = { [`level${i}`]: value, wide: 'y'.repeat(300) };
  return value;
}

function manyKeys(count: number, keyChars: number, value: () => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) out[`${String(i).padStart(keyChars, '\u0001')}`] = value();
  return out;
}

/** Argument shapes a model (or a hostile prompt) can send, each meant to blow up one log line. */
const HOSTILE: Record<string, Record<string, unknown>> = {
  '150,000-item array': { items: Array.from({ length: 150_000 }, (_, i) => i) },
  '150,000 strings': { items: Array.from({ length: 150_000 }, () => 'z'.repeat(250)) },
  '40,000 keys': manyKeys(40_000, 6, () => 1),
  '40,000 nested objects': { map: manyKeys(40_000, 6, () => ({ a: 'b'.repeat(300), c: [1, 2, 3] })) },
  'keys of 200 control characters': manyKeys(5_000, 200, () => '\u0002'.repeat(200)),
  '5,000 levels deep': nested(5_000),
  'arrays of arrays': { grid: Array.from({ length: 1_000 }, () => Array.from({ length: 1_000 }, () => '\u0000'.repeat(199))) },
  'a 10 MB string': { text: 'é'.repeat(10 * 1024 * 1024) },
};

describe('hostile: the tool-call log stays bounded and keeps secrets out', () => {
  let ws: TempWorkspace;
  let folder: string;

  beforeEach(async () => {
    ws = await TempWorkspace.create();
    folder = path.join(ws.parent, 'storage');
  });

  afterEach(() => ws.dispose());

  it(`writes every hostile call as one line of at most ${MAX_RECORD_BYTES} bytes, saying what was cut`, async () => {
    const log = new ToolCallLog({ folder });
    for (const [label, args] of Object.entries(HOSTILE)) log.append(toRecord(report(`mcp_${label.replace(/\W/g, '_')}`, args), 'chat-1'));
    const sizes = await (async () => (await log.flush(), lineBytes(log.file)))();
    assert.equal(sizes.length, Object.keys(HOSTILE).length, 'one line per call');
    sizes.forEach((bytes, i) => assert.ok(bytes <= MAX_RECORD_BYTES, `${Object.keys(HOSTILE)[i]}: ${bytes} bytes`));
    const records = await log.read();
    assert.equal(records.length, sizes.length, 'every line is a whole JSON record');
    const text = await fs.readFile(log.file, 'utf8');
    assert.match(text, /\[cut: 149980 more of 150000 items\]/);
    assert.match(text, /\[cut: 39970 more of 40000 keys\]/);
    assert.match(text, /\[nested too deep\]/);
    assert.match(text, /\[cut: 10485760 characters\]/);
  });

  it('a tool name, a chat id and an MCP client\'s name of a megabyte, and fields added to records later, are bounded too', async () => {
    const log = new ToolCallLog({ folder });
    const huge = { ...report('n'.repeat(1024 * 1024), { a: 1 }), caller: { kind: 'mcp', chatId: 'c'.repeat(1024 * 1024), label: 'l'.repeat(1024 * 1024) } };
    const record = toRecord(huge, huge.caller.chatId);
    log.append({ ...record, later: { id: 'x'.repeat(1_000_000), list: Array.from({ length: 100_000 }, () => 'q') } } as unknown as ToolCallRecord);
    await log.flush();
    const [bytes] = await lineBytes(log.file);
    assert.ok(bytes <= MAX_RECORD_BYTES, `${bytes} bytes`);
    const [kept] = await log.read();
    assert.ok(kept.tool.length < 300 && kept.chatId.length < 300 && (kept.caller ?? '').length < 300);
    assert.equal(kept.status, 'ok');
  });

  it('a few hostile calls no longer rotate the audit trail away', async () => {
    const log = new ToolCallLog({ folder });
    log.append(toRecord(report('read_file', { path: 'first-call.ts' }), 'chat-1'));
    for (let i = 0; i < 20; i++) log.append(toRecord(report('mcp_big', HOSTILE['150,000 strings']), 'chat-1'));
    await log.flush();
    await assert.rejects(fs.stat(log.previousFile), /ENOENT/, 'nothing rotated');
    assert.match(await fs.readFile(log.file, 'utf8'), /first-call\.ts/);
  });

  it('the memory log (no storage folder) keeps bounded records too', async () => {
    const log = new MemoryToolCallLog();
    log.append(toRecord(report('mcp_keys', HOSTILE['40,000 nested objects']), 'none'));
    const [kept] = await log.read();
    assert.ok(Buffer.byteLength(JSON.stringify(kept)) < MAX_RECORD_BYTES);
  });

  describe('secrets', () => {
    async function runAndLog(calls: [string, Record<string, unknown>][], globs: readonly string[] = DEFAULT_SENSITIVE_GLOBS): Promise<string> {
      const registry = createDefaultToolRegistry(contextFor(ws, { answer: true, sensitiveGlobs: globs }));
      registry.enable('run_bash');
      const log = new ToolCallLog({ folder });
      registry.onDidRun((r) => log.append(toRecord(r, 'chat-1', { sensitiveGlobs: globs })));
      for (const [tool, args] of calls) await registry.run(tool, args);
      await log.flush();
      return fs.readFile(log.file, 'utf8');
    }

    it('never writes the content of a write to a sensitive file, nor its hash', async () => {
      const content = `API_KEY=${SECRET}\n`;
      const text = await runAndLog([
        ['write_file', { path: '.env', content }],
        ['write_file', { path: 'config/.env.production', content }],
      ]);
      assert.equal(await ws.read('.env'), content, 'the write itself happened');
      assert.ok(!text.includes(SECRET), 'the secret is not in the log file');
      assert.ok(!text.includes(createHash('sha256').update(content).digest('hex')), 'nor its hash');
      const records = text.trim().split('\n').map((l) => JSON.parse(l) as ToolCallRecord);
      assert.deepEqual(records.map((r) => r.args.path), ['.env', 'config/.env.production'], 'the path stays');
      assert.match(String(records[0].args.content), /^\[not logged: 33 characters; the call names a file matching "\.env"\]$/);
    });

    it('logs no write content at all: a plain file gets its length and SHA-256 instead', async () => {
      const content = `first line ${SECRET}\n`.repeat(3);
      const text = await runAndLog([['write_file', { path: 'notes/plan.md', content }]]);
      assert.ok(!text.includes(SECRET));
      const digest = createHash('sha256').update(await ws.read('notes/plan.md')).digest('hex');
      assert.match(text, new RegExp(`"content":"\\[not logged: ${content.length} characters, sha256 ${digest}\\]"`));
    });

    it('withholds a command that writes a secret into a sensitive file, and any tool call naming one', async () => {
      const text = await runAndLog([
        ['run_bash', { command: `printf 'TOKEN=${SECRET}' > .env` }],
        ['run_bash', { command: `echo '${SECRET}' >> keys/server.pem` }],
      ]);
      assert.equal(await ws.read('.env'), `TOKEN=${SECRET}`, 'the command ran');
      assert.ok(!text.includes(SECRET));
      const commands = text.trim().split('\n').map((l) => (JSON.parse(l) as ToolCallRecord).args.command);
      assert.deepEqual(commands, [
        '[not logged: 46 characters; the call names a file matching ".env"]',
        '[not logged: 50 characters; the call names a file matching "*.pem"]',
      ]);

      const log = new ToolCallLog({ folder: path.join(ws.parent, 'mcp') });
      log.append(toRecord(report('fs_write_file', { path: 'deploy/id_rsa', content: SECRET, mode: 384, overwrite: true }), 'c'));
      log.append(toRecord(report('fs_edit_file', { file_path: 'app/.npmrc', edits: [{ oldText: 'a', newText: SECRET }] }), 'c'));
      await log.flush();
      const mcp = await fs.readFile(log.file, 'utf8');
      assert.ok(!mcp.includes(SECRET));
      const [write, edit] = mcp.trim().split('\n').map((l) => JSON.parse(l) as ToolCallRecord);
      assert.deepEqual([write.args.path, write.args.mode, write.args.overwrite], ['deploy/id_rsa', 384, true]);
      assert.equal(edit.args.file_path, 'app/.npmrc');
      assert.equal(edit.args.edits, '[not logged: 1 items; the call names a file matching ".npmrc"]');
    });

    it('follows the workspace globs, not only the default list', async () => {
      const text = await runAndLog([['write_file', { path: 'secrets/prod.yaml', content: `password: ${SECRET}` }]], ['secrets/**']);
      assert.ok(!text.includes(SECRET));
      assert.equal((JSON.parse(text) as ToolCallRecord).args.content, '[not logged: 34 characters; the call names a file matching "secrets/**"]');
    });
  });
});
