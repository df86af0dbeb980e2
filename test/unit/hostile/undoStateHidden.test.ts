import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sandboxAvailability } from '../../../src/tools/sandbox/sandboxAvailability';
import { builtCli } from '../../support/cliProcess';
import { IDENTITIES } from '../../support/sandboxFixture';

const SECRET = 'S3CR3T-undo-dotenv';

function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** Every regular file below `dir` (the store's blobs among them). */
async function filesBelow(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

// Undo keeps the earlier content of every file a call overwrites — an overwritten .env too — in the
// CLI's state folder. No sandboxed command may read it: `toolbelt mcp` runs as root and as uid
// 65534, overwrites .env through write_file, then a sandboxed run_bash tries to cat the store.
for (const identity of IDENTITIES) {
  describe(`hostile: undo's copies are hidden from sandboxed commands (toolbelt mcp as ${identity.name})`, function () {
    this.timeout(60_000);
    let base: string;

    before(async function () {
      const availability = await sandboxAvailability();
      if (!availability.available) console.log(`      no sandbox here, skipped: ${availability.detail}`);
      if (process.platform !== 'linux' || !availability.available) this.skip();
      if (identity.owner && (process.getuid?.() !== 0 || spawnSync('setpriv', ['--version']).status !== 0)) this.skip();
    });
    beforeEach(async () => {
      // Under /var/tmp: the sandbox's /tmp is private, which would hide the store for the wrong reason.
      base = await fs.mkdtemp('/var/tmp/toolbelt-undo-state-');
      await fs.chmod(base, 0o755);
      await fs.mkdir(path.join(base, 'workspace', '.vscode'), { recursive: true });
      await fs.mkdir(path.join(base, 'home'));
      await fs.writeFile(path.join(base, 'workspace', '.env'), `API_KEY=${SECRET}\n`);
      await fs.writeFile(path.join(base, 'workspace', '.vscode', 'settings.json'), JSON.stringify({ 'toolbelt.tools.registry': [{ name: 'write_file' }, { name: 'run_bash' }] }));
      // Every write asks (and the client below answers yes): undo keeps a secret's copy only for a change a person approved.
      await fs.writeFile(path.join(base, 'user.json'), JSON.stringify({ 'toolbelt.runBash.allowedCommands': ['cat', 'ls', 'echo', 'find'], 'toolbelt.approvals.writes': 'always' }));
      if (identity.owner) execFileSync('chown', ['-R', `${identity.owner.uid}:${identity.owner.gid}`, base]);
    });
    afterEach(() => fs.rm(base, { recursive: true, force: true }));

    /** Overwrites .env through the MCP server, then has a sandboxed command read `stateFolder`; the command's output. */
    async function overwriteThenRead(stateFolder: string, extra: string[]): Promise<string> {
      const args = [builtCli(), 'mcp', '--workspace', path.join(base, 'workspace'), '--user-settings', path.join(base, 'user.json'), '--enable', 'run_bash', ...extra];
      return withClient(args, async (client) => {
        const write = await client.callTool({ name: 'write_file', arguments: { path: '.env', content: 'API_KEY=rotated\n' } });
        assert.equal(write.isError, undefined, textOf(write));
        const copies = await blobsBelow(stateFolder);
        assert.ok(copies.some((copy) => copy.text.includes(SECRET)), `undo kept the earlier .env in ${stateFolder} (the case is real)`);
        for (const blob of copies) assert.equal((await fs.stat(blob.file)).mode & 0o777, 0o600, `${blob.file} is the owner's only`);
        const read = await client.callTool({ name: 'run_bash', arguments: { command: `cat ${stateFolder}/*/checkpoints/blobs/*; find ${stateFolder} -type f; echo RAN-undo-state` } });
        return textOf(read);
      });
    }

    /** Runs `toolbelt mcp` as the identity with a client that answers every question yes. */
    async function withClient<T>(args: string[], use: (client: Client) => Promise<T>): Promise<T> {
      const [command, ...prefix] = [...identity.wrap, process.execPath];
      const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: path.join(base, 'home'), LANG: 'C.UTF-8' };
      const transport = new StdioClientTransport({ command, args: [...prefix, ...args], env, cwd: base, stderr: 'pipe' });
      const client = new Client({ name: 'hostile', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { decision: 'Allow once' } }));
      await client.connect(transport);
      try {
        return await use(client);
      } finally {
        await client.close();
      }
    }

    async function blobsBelow(folder: string): Promise<{ file: string; text: string }[]> {
      const blobs = (await filesBelow(folder)).filter((file) => path.basename(path.dirname(file)) === 'blobs');
      return Promise.all(blobs.map(async (file) => ({ file, text: await fs.readFile(file, 'utf8') })));
    }

    it('keeps no copy of a secret at all when no person approved the change (writes not reviewed), and undo says so', async () => {
      await fs.writeFile(path.join(base, 'user.json'), JSON.stringify({ 'toolbelt.approvals.writes': 'never' }));
      if (identity.owner) execFileSync('chown', [`${identity.owner.uid}:${identity.owner.gid}`, path.join(base, 'user.json')]);
      const stateDir = path.join(base, 'state');
      const args = [builtCli(), 'mcp', '--workspace', path.join(base, 'workspace'), '--user-settings', path.join(base, 'user.json'), '--state-dir', stateDir];
      const result = await withClient(args, async (client) => {
        const write = await client.callTool({ name: 'write_file', arguments: { path: '.env', content: 'API_KEY=rotated\n' } });
        assert.equal(write.isError, undefined, textOf(write));
        const other = await client.callTool({ name: 'write_file', arguments: { path: 'notes.txt', content: 'two\n' } });
        assert.equal(other.isError, undefined, textOf(other));
        return textOf(write);
      });
      assert.equal(await fs.readFile(path.join(base, 'workspace', '.env'), 'utf8'), 'API_KEY=rotated\n', 'the write happened');
      const copies = await blobsBelow(stateDir);
      assert.ok(!copies.some((copy) => copy.text.includes(SECRET)), 'no copy of the earlier .env is on disk');
      assert.ok(result.length > 0);
      const undo = () => {
        const [command, ...prefix] = [...identity.wrap, process.execPath];
        const run = spawnSync(command, [...prefix, builtCli(), 'undo', '--workspace', path.join(base, 'workspace'), '--state-dir', stateDir], { encoding: 'utf8', env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: path.join(base, 'home') } });
        return run.stdout + run.stderr;
      };
      assert.match(undo(), /restored {2}notes\.txt/, 'each call is its own group: the newest first');
      assert.match(undo(), /may hold secrets \(toolbelt\.tools\.sensitiveFiles\) and no person approved this change/);
      assert.equal(await fs.readFile(path.join(base, 'workspace', '.env'), 'utf8'), 'API_KEY=rotated\n', 'undo cannot bring the secret back: it was never kept');
    });

    it('the default state folder (~/.local/state/toolbelt) cannot be read by a sandboxed run_bash', async () => {
      const output = await overwriteThenRead(path.join(base, 'home', '.local', 'state', 'toolbelt'), []);
      assert.match(output, /RAN-undo-state/, 'the command ran');
      assert.doesNotMatch(output, new RegExp(SECRET), 'the earlier .env was read from the store');
      assert.doesNotMatch(output, /index\.json/, 'the store could be listed');
    });

    it('a state folder named with --state-dir cannot be read by a sandboxed run_bash either', async () => {
      const stateDir = path.join(base, 'state');
      const output = await overwriteThenRead(stateDir, ['--state-dir', stateDir]);
      assert.match(output, /RAN-undo-state/, 'the command ran');
      assert.doesNotMatch(output, new RegExp(SECRET), 'the earlier .env was read from the store');
      assert.doesNotMatch(output, /index\.json/, 'the store could be listed');
    });
  });
}
