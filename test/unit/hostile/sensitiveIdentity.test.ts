import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { createDefaultToolRegistry } from '../../../src/tools/factory';
import type { ConfirmationRequest } from '../../../src/tools/types';
import { bundledRipgrep, contextFor, TempWorkspace } from '../../support/workspace';

const SECRET = 'sk-live-HARDLINK-7777';

/**
 * Sensitive files are judged by what they are, not only by their path: a hard link to `.env` is
 * `.env`, and a folder moved out from under a glob takes its secrets with it. Each case checks the
 * effect (what the model reads, what is on disk), not a message.
 */
describe('hostile: sensitive files under other names', () => {
  let ws: TempWorkspace;

  beforeEach(async () => {
    ws = await TempWorkspace.create({
      '.env': `API_KEY=${SECRET}\n`,
      'config/prod.json': `{"token": "${SECRET}"}\n`,
      'src/app.ts': 'export {};\n',
    });
    await fs.link(ws.path('.env'), ws.path('notes.txt'));
    await fs.mkdir(ws.path('docs/deep'), { recursive: true });
    await fs.link(ws.path('config/prod.json'), ws.path('docs/deep/readme.json'));
  });

  afterEach(() => ws.dispose());

  const GLOBS = ['.env', 'config/*.json'];

  describe('hard links', () => {
    for (const [link, original] of [['notes.txt', '.env'], ['docs/deep/readme.json', 'config/prod.json']]) {
      it(`read_file of ${link} (a hard link to ${original}) asks, and without anyone to ask never returns the secret`, async () => {
        const asked: ConfirmationRequest[] = [];
        const asking = createDefaultToolRegistry(contextFor(ws, { sensitiveGlobs: GLOBS, answer: (r) => (asked.push(r), false) }));
        const declined = await asking.run('read_file', { path: link });
        assert.equal(declined.status, 'refused');
        assert.ok(!declined.text.includes(SECRET), declined.text);
        assert.deepEqual(asked.map((r) => r.reason), ['sensitive']);
        assert.match(asked[0].summary, /hard link/);

        const nobody = await createDefaultToolRegistry(contextFor(ws, { sensitiveGlobs: GLOBS })).run('read_file', { path: link });
        assert.equal(nobody.status, 'refused');
        assert.ok(!nobody.text.includes(SECRET), nobody.text);
      });
    }

    it('a person who allows it gets the file', async () => {
      const result = await createDefaultToolRegistry(contextFor(ws, { sensitiveGlobs: GLOBS, answer: true })).run('read_file', { path: 'notes.txt' });
      assert.equal(result.status, 'ok');
      assert.ok(result.text.includes(SECRET));
    });

    it('a file with one link is read without asking', async () => {
      const asked: ConfirmationRequest[] = [];
      const result = await createDefaultToolRegistry(contextFor(ws, { sensitiveGlobs: GLOBS, answer: (r) => (asked.push(r), false) })).run('read_file', { path: 'src/app.ts' });
      assert.equal(result.status, 'ok');
      assert.equal(asked.length, 0);
    });

    for (const engine of ['ripgrep', 'node fallback'] as const) {
      it(`search_text (${engine}) leaves the hard links' lines out and names them`, async () => {
        const rgPath = engine === 'ripgrep' ? bundledRipgrep() : undefined;
        const result = await createDefaultToolRegistry(contextFor(ws, { sensitiveGlobs: GLOBS, rgPath })).run('search_text', { pattern: SECRET });
        assert.equal(result.status, 'ok');
        assert.ok(!result.text.includes(`API_KEY=${SECRET}`) && !result.text.includes(`"token": "${SECRET}"`), result.text);
        assert.match(result.text, /notes\.txt/);
        assert.match(result.text, /docs\/deep\/readme\.json/);
      });
    }
  });

  describe('moving a folder out from under a glob', () => {
    const SECRET_GLOBS = ['secrets/*.json', 'vault/**/*.key'];

    beforeEach(async () => {
      await ws.write({ 'secrets/prod.json': `{"k": "${SECRET}"}`, 'secrets/readme.md': 'no secret', 'vault/a/b/c.key': SECRET, 'plain/x.txt': 'x' });
    });

    for (const [source, destination] of [['secrets', 'public'], ['vault', 'open'], ['vault/a', 'open']]) {
      it(`move ${source} ${destination} asks, and moves nothing when declined or when nobody can be asked`, async () => {
        const asked: ConfirmationRequest[] = [];
        const declined = await createDefaultToolRegistry(contextFor(ws, { sensitiveGlobs: SECRET_GLOBS, answer: (r) => (asked.push(r), false) })).run('move', { source, destination });
        assert.equal(declined.status, 'refused');
        assert.deepEqual(asked.map((r) => r.reason), ['sensitive']);
        assert.equal(await ws.exists(source), true);
        assert.equal(await ws.exists(destination), false);

        const nobody = await createDefaultToolRegistry(contextFor(ws, { sensitiveGlobs: SECRET_GLOBS })).run('move', { source, destination });
        assert.equal(nobody.status, 'refused');
        assert.equal(await ws.exists(destination), false);
      });
    }

    it('a move the person allows goes ahead', async () => {
      const registry = createDefaultToolRegistry(contextFor(ws, { sensitiveGlobs: SECRET_GLOBS, answer: true }));
      assert.equal((await registry.run('move', { source: 'secrets', destination: 'public' })).status, 'ok');
      assert.equal(await ws.exists('public/prod.json'), true);
    });

    it('a folder without sensitive files, or one that stays under a glob, moves without asking', async () => {
      const asked: ConfirmationRequest[] = [];
      const registry = createDefaultToolRegistry(contextFor(ws, { sensitiveGlobs: [...SECRET_GLOBS, 'archive/**'], answer: (r) => (asked.push(r), false) }));
      assert.equal((await registry.run('move', { source: 'plain', destination: 'other' })).status, 'ok');
      assert.equal((await registry.run('move', { source: 'secrets', destination: 'archive/secrets' })).status, 'ok');
      assert.equal(asked.length, 0);
    });
  });
});
