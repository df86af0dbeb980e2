import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { HIDDEN_HOME_PATHS } from '../../src/tools/sandbox/sandboxLaunch';
import { checkSensitiveGlobs, DEFAULT_SENSITIVE_GLOBS, HOME_CREDENTIAL_PATHS, sensitiveGlobFor } from '../../src/tools/sensitiveFiles';
import type { ConfirmationRequest, ToolContext } from '../../src/tools/types';
import { bundledRipgrep, contextFor, TempWorkspace, type TestContext } from '../support/workspace';

const SECRET = 'sk-live-DO-NOT-LEAK-4242';
const GLOBS = [...DEFAULT_SENSITIVE_GLOBS, 'secrets/**'];

describe('sensitive files', () => {
  let ws: TempWorkspace;
  before(async () => {
    ws = await TempWorkspace.create({
      '.env': `API_KEY=${SECRET}\n`,
      'config/.env.production': `TOKEN=${SECRET}\n`,
      'keys/server.pem': `-----BEGIN ${SECRET}-----\n`,
      'secrets/notes.md': `the key is ${SECRET}\n`,
      'src/app.ts': `const key = process.env.API_KEY; // not ${SECRET.slice(0, 7)}\n`,
      'README.md': 'API_KEY goes in .env\n',
      '.gitignore': 'ignored/\n',
      'ignored/.env': `IGNORED=${SECRET}\n`,
    });
    await fs.symlink('.env', ws.path('notes.txt'));
    await fs.symlink('../keys', ws.path('src/keylink'));
  });
  after(() => ws.dispose());

  function tools(extra: Partial<ToolContext> & { answer?: boolean | ((r: ConfirmationRequest) => boolean) } = {}): { ctx: TestContext; registry: ReturnType<typeof createDefaultToolRegistry> } {
    const ctx = contextFor(ws, { sensitiveGlobs: GLOBS, ...extra });
    return { ctx, registry: createDefaultToolRegistry(ctx) };
  }

  describe('matching', () => {
    it('matches names at any depth and paths with "/" from the root', () => {
      assert.equal(sensitiveGlobFor(GLOBS, ['.env']), '.env');
      assert.equal(sensitiveGlobFor(GLOBS, ['a/b/.env.local']), '.env.*');
      assert.equal(sensitiveGlobFor(GLOBS, ['home/.ssh/id_ed25519.pub']), 'id_ed25519*');
      assert.equal(sensitiveGlobFor(GLOBS, ['secrets/deep/x.txt']), 'secrets/**');
      assert.equal(sensitiveGlobFor(GLOBS, ['src/secrets/x.txt']), undefined);
      assert.equal(sensitiveGlobFor(GLOBS, ['src/environment.ts', 'docs/.envrc']), undefined);
      assert.equal(sensitiveGlobFor([], ['.env']), undefined);
    });

    it('has the same default list as the setting in package.json', () => {
      const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));
      assert.deepEqual(pkg.contributes.configuration.properties['toolbelt.tools.sensitiveFiles'].default, DEFAULT_SENSITIVE_GLOBS);
      assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes('toolbelt.tools.sensitiveFiles'));
    });

    it('the defaults cover the home folder\'s credentials wherever a workspace holds them (one list with the sandbox)', () => {
      for (const credential of HOME_CREDENTIAL_PATHS) {
        assert.ok(sensitiveGlobFor(DEFAULT_SENSITIVE_GLOBS, [credential]), credential);
        assert.ok(sensitiveGlobFor(DEFAULT_SENSITIVE_GLOBS, [`home/me/${credential}`]), `home/me/${credential}`);
      }
      for (const inside of ['.aws/credentials', '.config/gh/hosts.yml', '.kube/config', '.ssh/id_ecdsa', '.gnupg/private-keys-v1.d/x.key']) {
        assert.ok(sensitiveGlobFor(DEFAULT_SENSITIVE_GLOBS, [inside]), inside);
      }
      assert.equal(sensitiveGlobFor(DEFAULT_SENSITIVE_GLOBS, ['.config/Code/User/settings.json']), undefined);
      for (const credential of HOME_CREDENTIAL_PATHS) assert.ok(HIDDEN_HOME_PATHS.includes(credential), `the sandbox hides ~/${credential}`);
    });

    it('checks one level\'s list: nothing when unset, bad entries reported and left out', () => {
      assert.deepEqual(checkSensitiveGlobs(undefined), { globs: [], problems: [] });
      const checked = checkSensitiveGlobs(['.env', 3, '', '!*.md', '{1..5000}', '@(a|b).key']);
      assert.deepEqual(checked.globs, ['.env', '@(a|b).key']);
      assert.equal(checked.problems.length, 5);
      assert.match(checked.problems[4], /search_text searches without ripgrep/);
      assert.match(checked.problems[2], /starts with "!"/);
      assert.equal(checkSensitiveGlobs('nope').problems.length, 1);
    });
  });

  describe('read_file', () => {
    it('asks with reason "sensitive" and returns the content only when allowed', async () => {
      const allowed = tools({ answer: true });
      const result = await allowed.registry.run('read_file', { path: '.env' });
      assert.equal(result.status, 'ok');
      assert.equal(result.approvedBy, 'person');
      assert.match(result.text, new RegExp(SECRET));
      assert.equal(allowed.ctx.confirmations.length, 1);
      assert.equal(allowed.ctx.confirmations[0].reason, 'sensitive');
      assert.deepEqual(allowed.ctx.confirmations[0].paths, ['.env']);
      assert.match(allowed.ctx.confirmations[0].summary, /may hold secrets/);

      const declined = tools({ answer: false });
      const refused = await declined.registry.run('read_file', { path: 'config/.env.production' });
      assert.equal(refused.status, 'refused');
      assert.ok(!refused.text.includes(SECRET), refused.text);
      assert.equal(declined.ctx.confirmations[0].reason, 'sensitive');
    });

    it('is refused where nobody can be asked', async () => {
      const { registry } = tools();
      const result = await registry.run('read_file', { path: 'keys/server.pem' });
      assert.equal(result.status, 'refused');
      assert.match(result.text, /may hold secrets .*toolbelt\.tools\.sensitiveFiles.*none can be asked/);
      assert.ok(!result.text.includes(SECRET));
    });

    it('judges the real path: a symlink to .env asks too, and so does a link to its folder', async () => {
      const { ctx, registry } = tools({ answer: false });
      const viaLink = await registry.run('read_file', { path: 'notes.txt' });
      assert.equal(viaLink.status, 'refused');
      assert.ok(!viaLink.text.includes(SECRET));
      const viaFolderLink = await registry.run('read_file', { path: 'src/keylink/server.pem' });
      assert.equal(viaFolderLink.status, 'refused');
      assert.equal(ctx.confirmations.length, 2);
      assert.deepEqual(ctx.confirmations.map((c) => c.paths), [['.env'], ['keys/server.pem']]);
    });

    it('judges the name given as well as the real path', async () => {
      await fs.symlink('src/app.ts', ws.path('app.key'));
      try {
        const { ctx, registry } = tools({ answer: false });
        const result = await registry.run('read_file', { path: './app.key' });
        assert.equal(result.status, 'refused');
        assert.equal(ctx.confirmations.length, 1);
      } finally {
        await fs.rm(ws.path('app.key'));
      }
    });

    it('reads other files without asking, and every file when the list is empty', async () => {
      const { ctx, registry } = tools({ answer: false });
      assert.match(await registry.execute('read_file', { path: 'src/app.ts' }), /process\.env/);
      assert.equal(ctx.confirmations.length, 0);
      const open = tools({ sensitiveGlobs: [] });
      assert.match(await open.registry.execute('read_file', { path: '.env' }), new RegExp(SECRET));
    });
  });

  describe('move', () => {
    let scratch: TempWorkspace;
    beforeEach(async () => {
      scratch = await TempWorkspace.create({ '.env': `KEY=${SECRET}\n`, 'secrets/a.txt': SECRET, 'src/app.ts': 'x\n' });
    });
    afterEach(() => scratch.dispose());
    const movers = (answer?: boolean) => {
      const ctx = contextFor(scratch, { sensitiveGlobs: GLOBS, ...(answer === undefined ? {} : { answer }) });
      return { ctx, registry: createDefaultToolRegistry(ctx) };
    };

    it('asks before a sensitive file leaves its protection, and moves nothing when declined', async () => {
      const { ctx, registry } = movers(false);
      const result = await registry.run('move', { source: '.env', destination: 'env.txt' });
      assert.equal(result.status, 'refused');
      assert.equal(ctx.confirmations[0].reason, 'sensitive');
      assert.deepEqual(ctx.confirmations[0].paths, ['.env', 'env.txt']);
      assert.equal(await scratch.exists('.env'), true);
      assert.equal(await scratch.exists('env.txt'), false);
    });

    it('is refused where nobody can be asked, and allowed when the person says so', async () => {
      const refused = await movers().registry.run('move', { source: 'secrets', destination: 'public' });
      assert.equal(refused.status, 'refused');
      assert.equal(await scratch.exists('secrets/a.txt'), true);
      const { ctx, registry } = movers(true);
      const moved = await registry.run('move', { source: '.env', destination: 'env.txt' });
      assert.equal(moved.status, 'ok', moved.text);
      assert.equal(ctx.confirmations.length, 1);
      assert.equal(await scratch.exists('env.txt'), true);
    });

    it('moves without asking where the file stays protected, or was never sensitive', async () => {
      const { ctx, registry } = movers(false);
      assert.equal((await registry.run('move', { source: '.env', destination: 'config/.env' })).status, 'ok');
      assert.equal((await registry.run('move', { source: 'src/app.ts', destination: 'src/main.ts' })).status, 'ok');
      assert.equal(ctx.confirmations.length, 0);
      assert.equal(await scratch.exists('config/.env'), true);
    });
  });

  for (const engine of ['ripgrep', 'node fallback'] as const) {
    describe(`search_text (${engine})`, () => {
      const rgPath = engine === 'ripgrep' ? bundledRipgrep() : undefined;

      it('never returns a sensitive file\'s contents and says how many files it left out', async () => {
        const { ctx, registry } = tools({ rgPath, answer: true });
        const result = await registry.execute('search_text', { pattern: SECRET });
        assert.ok(!result.includes(`=${SECRET}`) && !result.includes(`is ${SECRET}`) && !result.includes(`BEGIN ${SECRET}`), result);
        assert.match(result, /^No matches for "sk-live-DO-NOT-LEAK-4242"\./);
        assert.match(result, /\[4 files matching toolbelt\.tools\.sensitiveFiles \(files that may hold secrets\) were not searched: \.env, config\/\.env\.production, keys\/server\.pem, secrets\/notes\.md\./);
        assert.ok(!result.includes('ignored/.env'), 'a git-ignored file is not counted: it would not have been searched');
        assert.equal(ctx.confirmations.length, 0);
      });

      it('still finds matches in other files, and counts within the model\'s glob', async () => {
        const { registry } = tools({ rgPath });
        const all = await registry.execute('search_text', { pattern: 'API_KEY' });
        assert.match(all, /README\.md:1: API_KEY goes in \.env/);
        assert.match(all, /src\/app\.ts:1:/);
        assert.ok(!all.includes(SECRET), all);
        assert.match(all, /\[4 files matching/);
        const inConfig = await registry.execute('search_text', { pattern: 'TOKEN', glob: 'config/**' });
        assert.match(inConfig, /^No matches/);
        assert.match(inConfig, /\[1 file matching toolbelt\.tools\.sensitiveFiles \(files that may hold secrets\) was not searched: config\/\.env\.production\./);
        const inMarkdown = await registry.execute('search_text', { pattern: 'key', glob: '*.md' });
        assert.match(inMarkdown, /\[1 file matching .* secrets\/notes\.md\./);
        assert.ok(!inMarkdown.includes(SECRET));
      });

      it('leaves a sensitive file out even when the model\'s glob names it', async () => {
        const { registry } = tools({ rgPath });
        const result = await registry.execute('search_text', { pattern: 'API_KEY', glob: '.env' });
        assert.ok(!result.includes(SECRET), result);
        assert.match(result, /\[1 file matching .* was not searched: \.env\./);
      });

      it('leaves out files of globs ripgrep cannot read (extglobs, ranges) and of "/"-anchored ones', async () => {
        const { registry } = tools({ rgPath, sensitiveGlobs: ['@(README|nothing).md', 'src/app.{1..3}', '/config/.env.production', './keys/*.pem'] });
        const readme = await registry.execute('search_text', { pattern: 'API_KEY' });
        assert.ok(!readme.includes('README.md:'), readme);
        assert.match(readme, /src\/app\.ts:1:/);
        assert.match(readme, /\[3 files matching .* were not searched: README\.md, config\/\.env\.production, keys\/server\.pem\./);
        const secret = await registry.execute('search_text', { pattern: SECRET });
        assert.ok(!secret.includes('config/.env.production:') && !secret.includes('keys/server.pem:'), secret);
      });

      it('searches everything when the list is empty', async () => {
        const { registry } = tools({ rgPath, sensitiveGlobs: [] });
        const result = await registry.execute('search_text', { pattern: SECRET });
        assert.match(result, /\.env:1: API_KEY=sk-live/);
        assert.ok(!result.includes('not searched'));
      });

      it('list_dir and search_files still show the names', async () => {
        const { ctx, registry } = tools({ rgPath, answer: false });
        const listing = await registry.execute('list_dir', { path: '.' });
        assert.match(listing, /^\.env$/m);
        const files = await registry.execute('search_files', { pattern: '*.pem' });
        assert.equal(files, 'keys/server.pem');
        assert.equal(ctx.confirmations.length, 0);
      });
    });
  }
});
