import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { once } from 'node:events';
import * as net from 'node:net';
import * as path from 'node:path';
import { sandboxEnvironment } from '../../src/tools/sandbox/sandboxEnvironment';
import { bwrapOptions, SECCOMP_FD, type SandboxPlan } from '../../src/tools/sandbox/sandboxInvocation';
import { MountPointLease } from '../../src/tools/sandbox/sandboxMountPoints';
import { programFilesUnder } from '../../src/tools/sandbox/sandboxProgramFiles';
import { addressFor, domainAllowed, isInternalAddress, targetAllowed } from '../../src/tools/sandbox/sandboxProxy';
import { WorkspaceScanner } from '../../src/tools/sandbox/sandboxScan';
import { DEFAULT_SENSITIVE_GLOBS } from '../../src/tools/sensitiveFiles';
import { TempWorkspace } from '../support/workspace';

const exists = (file: string) => fs.lstat(file).then(() => true, () => false);

describe('sandbox parts', () => {
  describe('the environment', () => {
    it('keeps only the allow-list, LC_*, the names asked for, and sets the fixed values on top', () => {
      const env = sandboxEnvironment(
        { PATH: '/bin', HOME: '/h', LC_ALL: 'C', OPENAI_API_KEY: 'sk', GITHUB_TOKEN: 't', MY_VAR: 'v', TMPDIR: '/var/tmp/x' },
        ['MY_VAR'],
        { TMPDIR: '/tmp', TERM: 'dumb' },
      );
      assert.deepEqual(env, { PATH: '/bin', HOME: '/h', LC_ALL: 'C', MY_VAR: 'v', TMPDIR: '/tmp', TERM: 'dumb' });
    });
  });

  describe('the domain allow-list', () => {
    it('matches a host exactly, or the subdomains of a *. entry, case-insensitively', () => {
      const list = ['registry.npmjs.org', '*.github.com', '127.0.0.1', '::1'];
      for (const host of ['registry.npmjs.org', 'REGISTRY.npmjs.org.', 'api.github.com', 'a.b.github.com', '127.0.0.1', '[::1]']) assert.ok(domainAllowed(host, list), host);
      for (const host of ['npmjs.org', 'evil-registry.npmjs.org', 'github.com', 'evilgithub.com', 'localhost', '127.0.0.2', '']) assert.ok(!domainAllowed(host, list), host);
      assert.ok(!domainAllowed('anything.com', []));
    });

    it('lets a host through on 443 (TLS) and 80 (HTTP) only, unless its entry names a port', () => {
      const list = ['registry.npmjs.org', '*.example.com:8443', '[::1]:9000', '127.0.0.1:5000'];
      assert.ok(targetAllowed('registry.npmjs.org', 443, 'tls', list));
      assert.ok(targetAllowed('registry.npmjs.org', 80, 'http', list));
      assert.ok(!targetAllowed('registry.npmjs.org', 22, 'tls', list));
      assert.ok(!targetAllowed('registry.npmjs.org', 443, 'http', list));
      assert.ok(targetAllowed('api.example.com', 8443, 'tls', list));
      assert.ok(!targetAllowed('api.example.com', 443, 'tls', list));
      assert.ok(targetAllowed('::1', 9000, 'http', list));
      assert.ok(targetAllowed('127.0.0.1', 5000, 'tls', list));
      assert.ok(!targetAllowed('127.0.0.1', 5001, 'tls', list));
    });

    it('refuses a listed name that resolves to this machine, its private network or the metadata service; a listed literal is taken as it is', async () => {
      const answers: Record<string, string[]> = { 'evil.example': ['93.184.216.34', '127.0.0.1'], 'meta.example': ['169.254.169.254'], 'ula.example': ['fd00::1'], 'mapped.example': ['::ffff:10.0.0.1'], 'fine.example': ['93.184.216.34'] };
      const lookup = async (host: string) => (answers[host] ?? []).map((address) => ({ address }));
      for (const host of ['evil.example', 'meta.example', 'ula.example', 'mapped.example', 'unknown.example']) assert.ok('refused' in (await addressFor(host, lookup)), host);
      assert.deepEqual(await addressFor('fine.example', lookup), { address: '93.184.216.34' });
      assert.deepEqual(await addressFor('127.0.0.1', lookup), { address: '127.0.0.1' });
      assert.deepEqual(await addressFor('[::1]', lookup), { address: '::1' });
      for (const address of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1']) assert.ok(isInternalAddress(address), address);
      for (const address of ['93.184.216.34', '2606:4700::1111', '8.8.8.8']) assert.ok(!isInternalAddress(address), address);
    });
  });

  describe("bwrap's options", () => {
    const plan: SandboxPlan = {
      engineArgs: ['--disable-userns'],
      network: 'off',
      masked: ['/run', '/home/u/.run'],
      privateDirs: [{ path: '/home/u', bytes: 1024 }],
      kept: ['/run/systemd/resolve/stub-resolv.conf', '/home/u/.gitconfig'],
      programFiles: ['/tmp/server-package'],
      writable: ['/ws', '/ws/inner', '/store'],
      pinned: ['/ws/.git'],
      readOnly: ['/ws/.vscode', '/ws/.git/hooks'],
      hiddenFiles: ['/ws/.env'],
      hiddenDirs: ['/home/u/.ssh', '/home/u/.ssh/keys', '/ws/secrets'],
      placeholders: { file: '/p/file', dir: '/p/dir' },
      cwd: '/ws',
    };
    const options = bwrapOptions(plan);
    const at = (...pair: string[]) => options.findIndex((_, i) => pair.every((p, j) => options[i + j] === p));

    it('mount the host read-only first, then what is writable, then what stays read-only, then what is hidden', () => {
      assert.ok(at('--ro-bind', '/', '/') < at('--tmpfs', '/tmp'));
      assert.equal(at('--size', String(1024 ** 3), '--tmpfs', '/tmp') + 2, at('--tmpfs', '/tmp'), 'the private /tmp holds 1 GiB at most');
      assert.ok(at('--tmpfs', '/tmp') < at('--ro-bind', '/tmp/server-package', '/tmp/server-package'), "the program's own files go into the fresh /tmp");
      assert.ok(at('--ro-bind', '/tmp/server-package', '/tmp/server-package') < at('--bind', '/ws', '/ws'));
      assert.ok(at('--bind', '/ws', '/ws') < at('--bind', '/ws/inner', '/ws/inner'));
      assert.ok(at('--bind', '/ws/.git', '/ws/.git') < at('--ro-bind-try', '/ws/.git/hooks', '/ws/.git/hooks'));
      assert.ok(at('--ro-bind-try', '/ws/.vscode', '/ws/.vscode') < at('--ro-bind', '/p/file', '/ws/.env'));
      assert.ok(at('--ro-bind', '/p/file', '/ws/.env') < at('--ro-bind', '/p/dir', '/ws/secrets'));
      assert.equal(at('--ro-bind', '/p/dir', '/home/u/.ssh/keys'), -1, 'a folder inside a hidden one is not mounted again');
      assert.deepEqual(options.slice(-2), ['--chdir', '/ws']);
    });

    it('mask the runtime folders after /tmp, bring back what name resolution needs, and make them read-only last', () => {
      assert.ok(at('--tmpfs', '/tmp') < at('--tmpfs', '/run'));
      assert.ok(at('--tmpfs', '/run') < at('--ro-bind', '/run/systemd/resolve/stub-resolv.conf', '/run/systemd/resolve/stub-resolv.conf'));
      assert.ok(at('--ro-bind', '/run/systemd/resolve/stub-resolv.conf', '/run/systemd/resolve/stub-resolv.conf') < at('--bind', '/ws', '/ws'), 'a workspace under /run/media is mounted after the mask');
      assert.ok(at('--tmpfs', '/home/u/.run') > 0);
      assert.ok(at('--ro-bind', '/p/dir', '/ws/secrets') < at('--remount-ro', '/run'), 'read-only once every mount point in it is made');
      assert.ok(at('--remount-ro', '/home/u/.run') > 0);
    });

    it('empty the home folder with a sized, writable tmpfs before the runtime folder inside it, show what tools need again, and never make it read-only', () => {
      assert.ok(at('--tmpfs', '/tmp') < at('--size', '1024', '--tmpfs', '/home/u'));
      assert.ok(at('--size', '1024', '--tmpfs', '/home/u') < at('--tmpfs', '/home/u/.run'), 'a runtime folder inside the home folder is masked after it');
      assert.ok(at('--size', '1024', '--tmpfs', '/home/u') < at('--ro-bind', '/home/u/.gitconfig', '/home/u/.gitconfig'));
      assert.ok(at('--size', '1024', '--tmpfs', '/home/u') < at('--ro-bind', '/p/dir', '/home/u/.ssh'), 'credentials are hidden on top');
      assert.equal(at('--remount-ro', '/home/u'), -1);
    });

    it('load the system-call filter from its descriptor, in every network mode', () => {
      for (const network of ['off', 'on', 'allowlist'] as const) assert.ok(bwrapOptions({ ...plan, network }).join(' ').includes(`--seccomp ${SECCOMP_FD}`), network);
    });

    it('unshare the network only when it is "off": the allow-list joins the relay\'s namespace, "on" keeps the host\'s', () => {
      assert.ok(options.includes('--unshare-net'));
      assert.ok(!bwrapOptions({ ...plan, network: 'on' }).includes('--unshare-net'));
      assert.ok(!bwrapOptions({ ...plan, network: 'allowlist' }).includes('--unshare-net'));
    });
  });

  describe("a program's own files under the private /tmp", () => {
    let base: string;
    beforeEach(async () => {
      // Under /tmp itself, whatever TMPDIR says: /tmp is what the sandbox replaces.
      base = await fs.mkdtemp('/tmp/toolbelt-program-files-');
      await fs.mkdir(path.join(base, 'pkg/dist/bin'), { recursive: true });
      await fs.writeFile(path.join(base, 'pkg/package.json'), '{}');
      await fs.writeFile(path.join(base, 'pkg/dist/bin/server.js'), '');
      await fs.mkdir(path.join(base, 'loose'));
      await fs.writeFile(path.join(base, 'loose/tool.py'), '');
      await fs.symlink(path.join(base, 'pkg/dist/bin/server.js'), path.join(base, 'link.js'));
    });
    afterEach(() => fs.rm(base, { recursive: true, force: true }));

    it('shows the package a file or link belongs to, once, and nothing without a package', async () => {
      const words = ['-y', 'node', path.join(base, 'pkg/dist/bin/server.js'), path.join(base, 'link.js'), path.join(base, 'pkg/dist'), path.join(base, 'loose/tool.py'), path.join(base, 'loose'), path.join(base, 'missing.js'), '/etc/hostname', '/tmp'];
      assert.deepEqual(await programFilesUnder(['/tmp'], words, ['/ws']), [path.join(base, 'pkg')]);
    });

    it('never shows a loose file of /tmp, such as a Kerberos ticket cache', async () => {
      const cache = `${base}-krb5cc`;
      await fs.writeFile(cache, 'ticket');
      try {
        assert.deepEqual(await programFilesUnder(['/tmp'], [cache], []), []);
      } finally {
        await fs.rm(cache, { force: true });
      }
    });

    it('leaves out what a writable folder shows already', async () => {
      assert.deepEqual(await programFilesUnder(['/tmp'], [path.join(base, 'pkg/dist/bin/server.js')], [base]), []);
    });

    it('never shows a socket named on the command line (an ssh agent, an editor), even one inside a package', async () => {
      const socket = path.join(base, 'pkg/agent.sock');
      const server = net.createServer().listen(socket);
      await once(server, 'listening');
      try {
        assert.deepEqual(await programFilesUnder(['/tmp'], [socket], []), []);
      } finally {
        server.close();
      }
    });
  });

  describe('finding the files to hide', () => {
    let ws: TempWorkspace;
    beforeEach(async () => {
      ws = await TempWorkspace.create({ 'a/b/c/keep.txt': '', 'a/.env': '', 'node_modules/pkg/.env': '', 'proj.code-workspace': '{}', 'sub/repo/x.txt': '' });
      await fs.mkdir(ws.path('.git'));
      await fs.mkdir(ws.path('sub/repo/.git'));
      await fs.writeFile(ws.path('sub/wt.git'), '');
      await fs.symlink('missing-target', ws.path('a/.env.local'));
      // Every folder old enough that its listing can be trusted.
      const past = new Date(Date.now() - 60_000);
      for (const dir of ['', 'a', 'a/b', 'a/b/c', 'sub', 'sub/repo']) await fs.utimes(ws.path(dir), past, past);
    });
    afterEach(() => ws.dispose());

    it('finds sensitive files, repositories and workspace files, skipping node_modules and dangling links', async () => {
      const scan = await new WorkspaceScanner().scan(ws.root, DEFAULT_SENSITIVE_GLOBS);
      assert.deepEqual(scan.sensitive, [{ path: ws.path('a/.env'), kind: 'file' }]);
      assert.deepEqual(scan.gitEntries.map((g) => path.relative(ws.root, g.path)).sort(), ['.git', 'sub/repo/.git']);
      assert.deepEqual(scan.workspaceFiles, [ws.path('proj.code-workspace')]);
    });

    it('reads again only the folders that changed, and finds a secret added deep inside', async () => {
      const scanner = new WorkspaceScanner();
      const first = await scanner.scan(ws.root, DEFAULT_SENSITIVE_GLOBS);
      const second = await scanner.scan(ws.root, DEFAULT_SENSITIVE_GLOBS);
      assert.equal(second.reread, 0, 'nothing changed, nothing read again');
      assert.equal(second.folders, first.folders);
      await fs.writeFile(ws.path('a/b/c/id_rsa'), 'key');
      const third = await scanner.scan(ws.root, DEFAULT_SENSITIVE_GLOBS);
      assert.equal(third.reread, 1);
      assert.deepEqual(third.sensitive.map((s) => path.relative(ws.root, s.path)).sort(), ['a/.env', 'a/b/c/id_rsa']);
    });

    it('does not trust a listing read in the same moment its folder changed', async () => {
      const scanner = new WorkspaceScanner();
      await fs.writeFile(ws.path('a/b/fresh.txt'), '');
      await scanner.scan(ws.root, DEFAULT_SENSITIVE_GLOBS);
      assert.equal((await scanner.scan(ws.root, DEFAULT_SENSITIVE_GLOBS)).reread, 1, 'a/b changed just now: read again');
    });
  });

  describe('placeholders for read-only places that do not exist', () => {
    let ws: TempWorkspace;
    beforeEach(async () => (ws = await TempWorkspace.create({ 'present/file.txt': 'x' })));
    afterEach(() => ws.dispose());

    it('makes them for as long as a sandbox needs them, and removes only what it made, once the last user is done', async () => {
      const wanted = [
        { path: ws.path('.vscode'), kind: 'dir' as const },
        { path: ws.path('commondir'), kind: 'file' as const, content: '.\n' },
        { path: ws.path('present'), kind: 'dir' as const },
      ];
      const first = await MountPointLease.acquire(wanted);
      const second = await MountPointLease.acquire(wanted);
      assert.equal(await fs.readFile(ws.path('commondir'), 'utf8'), '.\n');
      await first.release();
      assert.ok(await exists(ws.path('.vscode')), 'still used by the second sandbox');
      await second.release();
      await second.release();
      assert.equal(await exists(ws.path('.vscode')), false);
      assert.equal(await exists(ws.path('commondir')), false);
      assert.equal(await fs.readFile(ws.path('present/file.txt'), 'utf8'), 'x', 'what existed stays');
    });

    it('leaves a placeholder someone filled meanwhile', async () => {
      const lease = await MountPointLease.acquire([{ path: ws.path('.vscode'), kind: 'dir' }]);
      await fs.writeFile(ws.path('.vscode/settings.json'), '{}');
      await lease.release();
      assert.equal(await fs.readFile(ws.path('.vscode/settings.json'), 'utf8'), '{}');
    });
  });
});
