import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseGlob } from '../../src/tools/globPattern';
import { globSearchPaths, globUnderPaths, wildcardMatch } from '../../src/tools/globSearchPaths';
import { ripgrepFiles } from '../../src/tools/ripgrep';
import { bundledRipgrep, TempWorkspace } from '../support/workspace';

describe('search_files: walking only the folders a path glob names', () => {
  let ws: TempWorkspace;
  const rg = bundledRipgrep();
  const exclude = ['**/excluded', 'pkg3'];

  beforeEach(async () => {
    ws = await TempWorkspace.create({
      '.gitignore': 'ignored/\npkg2/\n!pkg2/keep/\n*.log\n',
      'src/a.ts': '',
      'src/deep/b.ts': '',
      'src/deep/c.log': '',
      'src/excluded/d.ts': '',
      'src/.hidden/e.ts': '',
      'ignored/f.ts': '',
      'pkg1/lib/g.ts': '',
      'pkg10/lib/h.ts': '',
      'pkg10/lib/.gitignore': 'skip.ts\n',
      'pkg10/lib/skip.ts': '',
      'pkg2/lib/i.ts': '',
      'pkg3/lib/j.ts': '',
      'pkg4/nested/.gitignore': '*\n',
      'pkg4/nested/k.ts': '',
      'pkg5/repo/.git/HEAD': '',
      'pkg5/repo/l.ts': '',
      'other/m.ts': '',
    });
    await fs.symlink(path.join(ws.root, 'other'), path.join(ws.root, 'pkg6'));
  });
  afterEach(() => ws.dispose());

  async function listed(glob: string, paths: readonly string[] | undefined, globs = [parseGlob(glob)]): Promise<string[]> {
    const files: string[] = [];
    await ripgrepFiles(rg, ws.root, exclude, globs, (file) => files.push(file) > 0, { paths });
    return files.sort();
  }

  const globs = ['src/**/*.ts', 'src/*.ts', 'src/deep/*', 'pkg1*/**/*.ts', 'pkg*/lib/*.ts', 'pkg4/**', 'pkg5/**/*.ts', 'pkg6/*.ts', 'ignored/*.ts', 'pkg2/**', 'pkg3/**', 'src/excluded/*', 'src/.hidden/*', 'nowhere/*.ts', 'p?g1/lib/*', 'pkg5/repo/*.ts', 'src/**', 'src/deep/**/*.log', 'pkg1*/lib/**', 'src/**/.hidden/*.ts', 'pkg1*/**/h.*'];
  for (const glob of globs) {
    it(`lists what a walk of the whole root lists: ${glob}`, async () => {
      const paths = await globSearchPaths(glob, ws.root, exclude);
      const whole = await listed(glob, undefined);
      assert.deepEqual(await listed(glob, paths?.length ? paths : undefined), whole);
      // Under the folders found, what is left of the glob (the name, or nothing) lists the same files.
      const rest = globUnderPaths(glob);
      if (paths?.length && rest) assert.deepEqual(await listed(glob, paths, rest), whole);
    });
  }

  it('leaves only the name to match under the folders, or nothing, where the folders decide the rest', () => {
    assert.deepEqual(globUnderPaths('pkg*/lib/**'), []);
    assert.deepEqual(globUnderPaths('src/**/*.ts')?.map((g) => g.nameGlob), [{ glob: '*.ts', exact: true }]);
    for (const whole of ['src/*.ts', 'src/deep/*', 'p?g1/lib/**', 'src/**/deep/*.ts', 'src/**/*.@(ts|js)', '**/*.ts', '!src/**']) assert.equal(globUnderPaths(whole), undefined, whole);
  });

  it('expands the leading folders of a path glob, and leaves the doubtful ones to a whole walk', async function () {
    if ((await globSearchPaths('src/*.ts', ws.root, [])) === undefined) this.skip(); // ignore rules outside the root on this machine
    assert.deepEqual(await globSearchPaths('src/**/*.ts', ws.root, exclude), ['src']);
    assert.deepEqual(await globSearchPaths('pkg1*/**/*.ts', ws.root, exclude), ['pkg1', 'pkg10']);
    assert.deepEqual(await globSearchPaths('nowhere/*.ts', ws.root, exclude), []);
    // A repository inside is walked the same from either start.
    assert.deepEqual(await globSearchPaths('pkg5/**/*.ts', ws.root, exclude), ['pkg5']);
    // A link to a folder is not followed by the walk, so it is not walked here either.
    assert.deepEqual(await globSearchPaths('pkg6/*.ts', ws.root, exclude), []);
    // A repository among the folders handed to ripgrep: its own rules, so the whole root.
    for (const doubtful of ['ignored/*.ts', 'pkg2/**', 'pkg3/**', 'src/excluded/*', 'pkg*/lib/*.ts', 'pkg5/repo/*.ts']) {
      assert.equal(await globSearchPaths(doubtful, ws.root, exclude), undefined, doubtful);
    }
    for (const whole of ['*.ts', '**/src/*.ts', '{src,pkg1}/*.ts', '!src/*.ts', '+(a|aa)/*.ts']) {
      assert.equal(await globSearchPaths(whole, ws.root, exclude), undefined, whole);
    }
  });

  it('matches * and ? in linear time, however many stars', () => {
    assert.equal(wildcardMatch('pkg1*', 'pkg10'), true);
    assert.equal(wildcardMatch('p?g*0', 'pkg10'), true);
    assert.equal(wildcardMatch('*b', 'aab'), true);
    assert.equal(wildcardMatch('a*', 'ba'), false);
    const started = performance.now();
    assert.equal(wildcardMatch(`${'*a'.repeat(30)}*b`, 'a'.repeat(5000)), false);
    assert.ok(performance.now() - started < 1000);
  });
});
