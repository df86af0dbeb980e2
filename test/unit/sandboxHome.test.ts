import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { homeView } from '../../src/tools/sandbox/sandboxHome';
import { programFilesUnder } from '../../src/tools/sandbox/sandboxProgramFiles';

describe('sandbox: the home folder a sandboxed process sees', () => {
  let home: string;

  beforeEach(async () => {
    home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-home-')));
    for (const dir of ['.pyenv/shims', '.config/git', 'bin', 'code/mono/packages/app', 'code/plain', 'tools/srv/lib', '.ssh']) await fs.mkdir(path.join(home, dir), { recursive: true });
    for (const file of ['.gitconfig', '.config/git/config', '.config/git/credentials', 'tools/srv/package.json', 'tools/srv/lib/index.js']) await fs.writeFile(path.join(home, file), '');
    execFileSync('git', ['init', '-q', path.join(home, 'code/mono')]);
  });
  afterEach(() => fs.rm(home, { recursive: true, force: true }));

  it("is emptied, showing git's config, toolchains, PATH entries under it and the person's readable paths again — never git's credentials", async () => {
    const view = await homeView(home, [path.join(home, 'code/plain')], `${path.join(home, 'bin')}:/usr/bin:${path.join(home, 'missing')}`, [path.join(home, 'code/mono')]);
    assert.equal(view.privateHome, home);
    assert.deepEqual([...view.kept].sort(), [path.join(home, '.config/git/config'), path.join(home, '.gitconfig'), path.join(home, '.pyenv'), path.join(home, 'bin'), path.join(home, 'code/mono')].sort());
    assert.deepEqual(view.repositories, []);
  });

  it('shows the whole repository a workspace folder lies in (a package of a monorepo), so git works from there', async () => {
    const view = await homeView(home, [path.join(home, 'code/mono/packages/app')], '', []);
    assert.deepEqual(view.repositories, [path.join(home, 'code/mono')]);
  });

  it('is left as it is where a workspace folder is the home folder or holds it', async () => {
    assert.equal((await homeView(home, [home], '', [])).privateHome, undefined);
    assert.equal((await homeView(home, [path.dirname(home)], '', [])).privateHome, undefined);
    assert.equal((await homeView('/', ['/srv/ws'], '', [])).privateHome, undefined);
    assert.equal((await homeView(path.join(home, 'missing'), ['/srv/ws'], '', [])).privateHome, undefined);
  });

  it("shows an MCP server's own package under the home folder, read-only, and nothing without a package", async () => {
    const words = ['node', path.join(home, 'tools/srv/lib/index.js'), path.join(home, '.ssh'), home];
    assert.deepEqual(await programFilesUnder(['/tmp', home], words, []), [path.join(home, 'tools/srv')]);
  });
});
