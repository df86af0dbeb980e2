import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { SandboxJob, SandboxJobResult } from '../../support/sandboxRunner';
import { git, SECRET, type HitServer, type SandboxFixture } from '../../support/sandboxFixture';

export interface CaseContext {
  fixture: SandboxFixture;
  server: HitServer;
  port: number;
  /** A host process the command must not reach. */
  hostPid: number;
}

/** One hostile command and how to tell, on the host, that it was contained. */
export interface SandboxCase {
  id: string;
  title: string;
  job(c: CaseContext): Omit<SandboxJob, 'id'>;
  check(c: CaseContext, r: SandboxJobResult): Promise<void>;
}

/** Files of the fixture's workspace that the sandbox keeps read-only beyond .vscode/ and git's. */
const PLANTED = ['.github/workflows/ci.yml', '.husky/pre-commit', '.envrc', '.claude/settings.json', '.mcp.json', 'sub/.vscode/settings.json', 'scripts/release.sh'];

/** Every command rule allows every part: what contains these commands is the sandbox alone. */
const ALLOW_ALL = { allowed: ['/.*/'], denied: [] };

const read = (file: string) => fs.readFile(file, 'utf8');
const exists = (file: string) => fs.lstat(file).then(() => true, () => false);

function noSecret(r: SandboxJobResult): void {
  assert.ok(!r.result.includes(SECRET), `a secret reached the output:\n${r.result}`);
}

/** Ran (its marker is in the output), inside the sandbox, and no rule or person was asked. */
function ranByRule(r: SandboxJobResult, marker: string): void {
  assert.ok(r.result.includes(marker), `the command did not run:\n${r.result}`);
  assert.match(r.result, /^[^\n]* · sandboxed, network off\n/);
  assert.deepEqual(r.asked, [], 'a rule allows it: nobody is asked');
}

async function untouched(c: CaseContext): Promise<void> {
  const { fixture } = c;
  assert.equal(await read(path.join(fixture.home, '.bashrc')), '# original bashrc\n');
  assert.equal(await read(path.join(fixture.sibling, 'notes.txt')), 'sibling original\n');
  assert.deepEqual(await fs.readdir(fixture.sibling), ['notes.txt']);
  assert.equal(await read(path.join(fixture.ws, '.vscode', 'settings.json')), '{"original": true}\n');
  assert.deepEqual(await fs.readdir(path.join(fixture.ws, '.vscode')), ['settings.json']);
  assert.equal(await read(path.join(fixture.ws, 'project.code-workspace')), '{"folders": [], "original": true}\n');
  assert.ok(!(await read(path.join(fixture.ws, '.git', 'config'))).includes('pwned'), '.git/config changed');
  assert.ok(!(await read(path.join(fixture.ws, '.git', 'config'))).includes('hooksPath'), '.git/config changed');
  assert.deepEqual((await fs.readdir(path.join(fixture.ws, '.git', 'hooks'))).filter((f) => !f.endsWith('.sample')), [], 'a hook appeared');
}

export const CASES: SandboxCase[] = [
  {
    id: 'workspace-secrets',
    title: 'files matching the sensitive globs cannot be read, through links or substitutions either',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: 'cat .env config/.env.local keys/server.pem; ln -sf .env link.txt; cat link.txt; grep -r S3 --exclude-dir=private . ; base64 .env; echo RAN-secrets', commandPolicy: ALLOW_ALL }),
    check: async (_c, r) => (noSecret(r), assert.match(r.result, /RAN-secrets/)),
  },
  {
    id: 'home-credentials',
    title: 'credentials in the home folder and toolbelt.sandbox.hiddenPaths cannot be read',
    job: (c) => ({
      workspaceRoot: c.fixture.ws,
      command: 'cat ~/.ssh/id_rsa ~/.aws/credentials ~/.npmrc ~/.netrc ~/.git-credentials ~/.config/gh/hosts.yml ~/.docker/config.json ~/.kube/config ~/.gnupg/private.key ~/extra/token private/data.txt; tar c ~/.ssh ~/.aws 2>/dev/null | base64; cat ~/.gitconfig; echo RAN-home',
      sandbox: { mode: 'auto', network: 'off', hiddenPaths: ['~/extra', 'private'] },
      commandPolicy: ALLOW_ALL,
    }),
    check: async (_c, r) => (noSecret(r), assert.match(r.result, /Sandbox Test/, "git's configuration stays readable"), assert.match(r.result, /RAN-home/)),
  },
  {
    id: 'home-hidden',
    title: 'the home folder is empty but for git config and toolchains: other projects, shell history, editor state and unlisted credentials are out of reach; writes there never reach the host',
    job: (c) => ({
      workspaceRoot: c.fixture.ws,
      command:
        'cat ~/code/other-project/.env ~/code/other-project/notes.txt ~/.bash_history ~/.config/git/credentials ~/.pgpass ~/.vault-token ~/.config/Code/User/globalStorage/state.vscdb; ' +
        'grep -r S3CR3T ~ 2>/dev/null; ls -A ~; echo written > ~/.bash_history && echo home-write-ok; hello-tool; git config user.name; echo RAN-home-hidden',
      commandPolicy: ALLOW_ALL,
    }),
    check: async (c, r) => {
      noSecret(r);
      ranByRule(r, 'RAN-home-hidden');
      assert.match(r.result, /^hello-tool-ran$/m, 'a PATH entry under the home folder still runs');
      assert.match(r.result, /^Sandbox Test$/m, "git's identity comes from ~/.gitconfig");
      assert.doesNotMatch(r.result, /^code$/m, 'other projects are not even listed');
      assert.match(r.result, /^home-write-ok$/m, 'the empty home folder is writable, privately');
      assert.equal(await read(path.join(c.fixture.home, '.bash_history')), `export TOKEN=${SECRET}-history`, "the host's file is untouched");
    },
  },
  {
    id: 'hidden-patterns',
    title: 'a toolbelt.sandbox.hiddenPaths pattern hides what it matches in the workspace, at any depth',
    job: (c) => ({
      workspaceRoot: c.fixture.ws,
      command: 'cat docs/plan.secret.txt; grep -r PATTERN-HIDDEN docs; cp docs/plan.secret.txt copy.txt; echo RAN-patterns',
      sandbox: { mode: 'auto', network: 'off', hiddenPaths: ['*.secret.txt'] },
      commandPolicy: ALLOW_ALL,
    }),
    check: async (c, r) => {
      ranByRule(r, 'RAN-patterns');
      assert.doesNotMatch(r.result, /PATTERN-HIDDEN-CONTENT/, r.result);
      assert.equal(await exists(path.join(c.fixture.ws, 'copy.txt')), false, 'nothing was copied out of it');
    },
  },
  {
    id: 'environment',
    title: 'no API key or token reaches a command, not even through /proc/1/environ; toolbelt.sandbox.env passes named ones',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: "env; tr '\\0' '\\n' </proc/1/environ; tr '\\0' '\\n' </proc/self/environ; echo RAN-env", sandbox: { mode: 'auto', network: 'off', env: ['MY_SETTING'] }, commandPolicy: ALLOW_ALL }),
    check: async (_c, r) => (noSecret(r), ranByRule(r, 'RAN-env'), assert.match(r.result, /^MY_SETTING=visible-value$/m), assert.match(r.result, /^NODE_EXTRA_CA_CERTS=\/etc\/ssl\/certs\/corp-ca\.pem$/m, 'the CA file reaches the command')),
  },
  {
    id: 'write-outside',
    title: 'nothing outside the workspace can be written: the home folder, a sibling folder, /etc',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: `echo RAN-outside; cp /etc/hostname ~/.bashrc; cp /etc/hostname ../sibling/notes.txt; mkdir ../sibling/new; touch ${c.fixture.base}/new-file /etc/toolbelt-pwned; touch /tmp/toolbelt-private-tmp-${process.pid}`, commandPolicy: ALLOW_ALL }),
    check: async (c, r) => {
      ranByRule(r, 'RAN-outside');
      await untouched(c);
      assert.equal(await exists(path.join(c.fixture.base, 'new-file')), false);
      assert.equal(await exists('/etc/toolbelt-pwned'), false);
      assert.equal(await exists(`/tmp/toolbelt-private-tmp-${process.pid}`), false, '/tmp inside is private');
    },
  },
  {
    id: 'policy-files',
    title: '.vscode/, *.code-workspace, .git/hooks and .git/config stay as they were, and .git cannot be swapped',
    job: (c) => ({
      workspaceRoot: c.fixture.ws,
      command: 'echo RAN-policy; rm -rf .vscode; mv .vscode v2; cp /etc/hostname .vscode/settings.json; touch .vscode/tasks.json; cp /etc/hostname project.code-workspace; git config core.hooksPath /tmp; cp /etc/hostname .git/hooks/pre-commit; mv .git .git-moved; git -C nested config core.fsmonitor "touch PWNED"; cp /etc/hostname nested/.git/hooks/pre-commit; mv nested/.git nested/.git-moved',
      commandPolicy: ALLOW_ALL,
    }),
    check: async (c, r) => {
      ranByRule(r, 'RAN-policy');
      await untouched(c);
      assert.equal(await exists(path.join(c.fixture.ws, '.git-moved')), false);
      assert.equal(await exists(path.join(c.fixture.ws, 'nested', '.git-moved')), false);
      assert.ok(!(await read(path.join(c.fixture.ws, 'nested', '.git', 'config'))).includes('fsmonitor'), 'the nested repository\'s config changed');
      assert.deepEqual((await fs.readdir(path.join(c.fixture.ws, 'nested', '.git', 'hooks'))).filter((f) => !f.endsWith('.sample')), []);
    },
  },
  {
    id: 'planted-config',
    title: 'what the editor, CI or another agent runs later cannot be changed: workflows, git hook managers, direnv, agents\' config, a nested .vscode/, and a path the settings add',
    job: (c) => ({
      workspaceRoot: c.fixture.ws,
      command: [
        'echo RAN-planted',
        ...PLANTED.map((file) => `echo pwned > ${file}`),
        ...PLANTED.map((file) => `rm -rf ${file}`),
        'mv .github/workflows gone; mv .claude gone2',
        'echo still-writable > src/new.js && echo workspace-ok',
      ].join('; '),
      sandbox: { mode: 'auto', network: 'off', readOnlyPaths: ['scripts/release.sh'] },
      commandPolicy: ALLOW_ALL,
    }),
    check: async (c, r) => {
      ranByRule(r, 'RAN-planted');
      for (const file of PLANTED) assert.match(await read(path.join(c.fixture.ws, file)), /original/, `${file} was changed`);
      assert.match(r.result, /^workspace-ok$/m, 'the rest of the workspace stays writable');
      assert.equal(await read(path.join(c.fixture.ws, 'src/new.js')), 'still-writable\n');
    },
  },
  {
    id: 'git-config-targets',
    title: "what the repository's config names in the tree cannot be planted: the core.hooksPath folder, an include (even one not there yet), a program it runs",
    job: (c) => ({
      workspaceRoot: c.fixture.bare,
      command: 'echo RAN-gitcfg; echo pwned > githooks/pre-commit; echo pwned > githooks/post-checkout; printf "[core]\\n\\tfsmonitor = ./evil\\n" >> team.gitconfig; printf "[core]\\n\\tfsmonitor = ./evil\\n" > absent.gitconfig; echo pwned > tools/ssh.sh; echo ok > notes.txt && echo ordinary-ok',
      commandPolicy: ALLOW_ALL,
    }),
    check: async (c, r) => {
      ranByRule(r, 'RAN-gitcfg');
      assert.equal(await read(path.join(c.fixture.bare, 'githooks/pre-commit')), 'original: hook\n');
      assert.equal(await exists(path.join(c.fixture.bare, 'githooks/post-checkout')), false, 'a new hook was planted');
      assert.equal(await read(path.join(c.fixture.bare, 'team.gitconfig')), '[core]\n\tpager = cat\n');
      assert.equal(await exists(path.join(c.fixture.bare, 'absent.gitconfig')), false, 'an include target was planted');
      assert.equal(await read(path.join(c.fixture.bare, 'tools/ssh.sh')), 'original: ssh\n');
      assert.match(r.result, /^ordinary-ok$/m);
    },
  },
  {
    id: 'git-redirect',
    title: 'the repository cannot be pointed at a config of the command\'s making (.git/commondir, config.worktree)',
    job: (c) => ({
      workspaceRoot: c.fixture.ws,
      command: `echo RAN-redirect-git; mkdir -p evilgit && cp -r .git/objects .git/refs .git/HEAD evilgit/ && printf '[core]\\n\\tfsmonitor = "touch ${c.fixture.ws}/PWNED; false"\\n' > evilgit/config; echo ../evilgit > .git/commondir; printf '[core]\\n\\tfsmonitor = "touch ${c.fixture.ws}/PWNED"\\n' > .git/config.worktree; git status --short | head -1`,
      commandPolicy: ALLOW_ALL,
      answer: true,
    }),
    check: async (c, r) => {
      assert.match(r.result, /RAN-redirect-git/);
      for (const name of ['commondir', 'config.worktree']) assert.equal(await exists(path.join(c.fixture.ws, '.git', name)), false, `.git/${name} is on the host`);
      git(c.fixture.ws, 'status', '--short');
      assert.equal(await exists(path.join(c.fixture.ws, 'PWNED')), false, 'git on the host ran the command\'s fsmonitor');
    },
  },
  {
    id: 'absent-policy-folders',
    title: 'an absent .vscode/ or .git/hooks cannot be created, and no trace is left on the host',
    job: (c) => ({ workspaceRoot: c.fixture.bare, command: 'echo RAN-absent; mkdir .vscode; mkdir -p .vscode/x; echo "{}" > .vscode/settings.json; mkdir .git/hooks; echo x > .git/hooks/pre-commit; ls -A .vscode; echo pwned > .git/config', answer: true }),
    check: async (c, r) => {
      assert.match(r.result, /RAN-absent/);
      assert.equal(await exists(path.join(c.fixture.bare, '.vscode')), false, '.vscode exists on the host');
      assert.equal(await exists(path.join(c.fixture.bare, '.git', 'hooks')), false, '.git/hooks exists on the host');
      assert.match(await read(path.join(c.fixture.bare, '.git', 'config')), /\[core\]/);
    },
  },
  {
    id: 'bypass-chaining',
    title: 'chaining: the later parts of an allowed list are contained',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: 'echo RAN-chain && cp /etc/hostname ~/.bashrc; cp /etc/hostname ../sibling/notes.txt || rm -f .vscode/settings.json', commandPolicy: ALLOW_ALL, answer: false }),
    check: async (c, r) => (ranByRule(r, 'RAN-chain'), await untouched(c)),
  },
  {
    id: 'bypass-substitution',
    title: 'substitution: $(…) and backticks read nothing hidden',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: 'echo RAN-subst $(cat ~/.ssh/id_rsa) $(cat .env) `cat ~/.aws/credentials` $(cp /etc/hostname ~/.bashrc)', commandPolicy: ALLOW_ALL, answer: false }),
    check: async (c, r) => (ranByRule(r, 'RAN-subst'), noSecret(r), await untouched(c)),
  },
  {
    id: 'bypass-wrappers',
    title: 'wrappers: env, timeout, sh -c run the same contained command',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: "env LANG=C bash -c 'echo RAN-wrap; cp /etc/hostname ../sibling/notes.txt; cat ~/.npmrc'; timeout 5 sh -c 'cp /etc/hostname .git/config; cat .env'", commandPolicy: ALLOW_ALL, answer: false }),
    check: async (c, r) => (ranByRule(r, 'RAN-wrap'), noSecret(r), await untouched(c)),
  },
  {
    id: 'bypass-sed',
    title: 'sed -i changes none of the protected or outside files',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: 'echo RAN-sed; sed -i s/original/pwned/ .vscode/settings.json; sed -i s/original/pwned/ ../sibling/notes.txt; sed -i s/original/pwned/ ~/.bashrc; sed -i s/core/pwned/ .git/config; sed -i s/original/pwned/ project.code-workspace', commandPolicy: ALLOW_ALL, answer: false }),
    check: async (c, r) => (ranByRule(r, 'RAN-sed'), await untouched(c)),
  },
  {
    id: 'bypass-find',
    title: 'find -exec runs only contained commands',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: "find . -maxdepth 1 -name package.json -exec sh -c 'echo RAN-find; cp /etc/hostname ../sibling/notes.txt; cat .env ~/.ssh/id_rsa' \\;", commandPolicy: ALLOW_ALL, answer: false }),
    check: async (c, r) => (ranByRule(r, 'RAN-find'), noSecret(r), await untouched(c)),
  },
  {
    id: 'bypass-interpreters',
    title: 'interpreters: node and python write and read nothing they may not',
    job: (c) => ({
      workspaceRoot: c.fixture.ws,
      command: `node -e "console.log('RAN-node'); try { require('fs').appendFileSync(process.env.HOME + '/.bashrc', 'pwned') } catch (e) { console.log(e.code) }; try { console.log(require('fs').readFileSync('.env', 'utf8')) } catch (e) { console.log(e.code) }"; python3 -c "print('RAN-py'); open('.git/hooks/pre-commit', 'w').write('#!/bin/sh')"`,
      commandPolicy: ALLOW_ALL,
      answer: false,
    }),
    check: async (c, r) => (ranByRule(r, 'RAN-node'), assert.match(r.result, /RAN-py/), noSecret(r), await untouched(c)),
  },
  {
    id: 'bypass-redirections',
    title: 'redirections (which ask): approved, they still change nothing protected',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: 'echo RAN-redirect; echo pwned > .git/config; echo pwned >> ~/.bashrc; echo pwned > ../sibling/notes.txt; echo pwned > .vscode/settings.json; cat < .env', commandPolicy: ALLOW_ALL, answer: true }),
    check: async (c, r) => (assert.match(r.result, /RAN-redirect/), noSecret(r), await untouched(c)),
  },
  {
    id: 'tmp-size',
    title: 'the private /tmp holds 1 GiB at most: a command cannot fill the memory through it',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: 'echo RAN-tmp; fallocate -l 900M /tmp/fits && echo fits-ok; fallocate -l 2G /tmp/too-big || echo too-big-refused; rm -f /tmp/fits', commandPolicy: ALLOW_ALL }),
    check: async (_c, r) => (ranByRule(r, 'RAN-tmp'), assert.match(r.result, /^fits-ok$/m, r.result), assert.match(r.result, /^too-big-refused$/m, r.result)),
  },
  {
    id: 'denial-hints',
    title: 'a denial says how to allow it: npm fails at once with the network off and the hint names the host; a protected file names its rule',
    job: (c) => ({
      workspaceRoot: c.fixture.ws,
      command: 'echo RAN-hints; npm install left-pad --no-audit --no-fund; git config user.name Someone; echo x > .github/workflows/ci.yml; exit 1',
      commandPolicy: ALLOW_ALL,
    }),
    check: async (c, r) => {
      ranByRule(r, 'RAN-hints');
      assert.match(r.result, /ENOTCACHED/, 'npm ran offline: it fails at once instead of retrying');
      assert.match(r.result, /^\[The command has no network in Toolbelt's sandbox \(it tried registry\.npmjs\.org\): toolbelt\.sandbox\.network is "off"\. To let it reach a host, set toolbelt\.sandbox\.network to "allowlist"/m);
      assert.match(r.result, /^\[Protected by Toolbelt's sandbox: \.git\/config \(git's config and hooks are read-only/m);
      assert.match(r.result, /^\[Protected by Toolbelt's sandbox: \.github\/workflows\/ci\.yml \(toolbelt\.sandbox\.readOnlyPaths: "\.github\/workflows\/"/m);
      assert.doesNotMatch(git(c.fixture.ws, 'config', '--get', 'user.name').trim(), /Someone/);
    },
  },
  {
    id: 'host-processes',
    title: 'host processes are out of sight and out of reach',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: `echo RAN-ps; kill -9 ${c.hostPid}; ls -d /proc/[0-9]* | wc -l`, commandPolicy: ALLOW_ALL }),
    check: async (c, r) => {
      ranByRule(r, 'RAN-ps');
      assert.doesNotThrow(() => process.kill(c.hostPid, 0), 'the host process was killed');
      assert.ok(Number(/\n(\d+)$/.exec(r.result)?.[1]) <= 5, `the command saw its host:\n${r.result}`);
    },
  },
  {
    id: 'toolchains',
    title: 'the workspace stays writable and common toolchains work: npm test, node, python, make, git add/commit',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: 'npm test && node -e "console.log(6*7)" && python3 -c "print(6*9)" && make && echo made > made.txt && git add made.txt && git commit -qm sandboxed-commit && git status --short | wc -l', commandPolicy: ALLOW_ALL, answer: true }),
    check: async (c, r) => {
      assert.match(r.result, /^Exit code: 0 /, r.result);
      for (const expected of ['npm-test-ran', '42', '54', 'make-ran']) assert.ok(r.result.includes(expected), `${expected} missing:\n${r.result}`);
      assert.equal(await read(path.join(c.fixture.ws, 'made.txt')), 'made\n');
      assert.match(git(c.fixture.ws, 'log', '--format=%s', '-1'), /sandboxed-commit/);
      assert.equal(git(c.fixture.ws, 'log', '--format=%an <%ae>', '-1').trim(), 'Sandbox Test <sandbox@example.com>', "the person's identity, from ~/.gitconfig in the empty home folder");
    },
  },
  {
    id: 'network-off',
    title: 'network "off": nothing reaches a server on the host',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: `echo RAN-net-off; curl -s -m 3 http://127.0.0.1:${c.port}/off-curl; (exec 3<>/dev/tcp/127.0.0.1/${c.port}) 2>&1; true`, commandPolicy: ALLOW_ALL }),
    check: async (c, r) => (ranByRule(r, 'RAN-net-off'), assert.deepEqual(c.server.hits.filter((h) => h.startsWith('/off')), [])),
  },
  {
    id: 'network-allowlist',
    title: 'network "allowlist": the listed host is reached, through the proxy only; any other fails',
    job: (c) => ({
      workspaceRoot: c.fixture.ws,
      command: `curl -s -m 5 http://127.0.0.1:${c.port}/allow-plain; curl -s -m 5 -p http://127.0.0.1:${c.port}/allow-tunnel; curl -s -m 5 http://localhost:${c.port}/deny-name; curl -s -m 5 -p http://localhost:${c.port}/deny-tunnel; curl -s -m 5 http://127.0.0.2:${c.port}/deny-unlisted; curl -s -m 3 --noproxy '*' http://127.0.0.1:${c.port}/deny-direct; echo RAN-allow`,
      // The literal address with its port; a listed name that resolves to this machine stays refused.
      sandbox: { mode: 'auto', network: 'allowlist', allowedDomains: [`127.0.0.1:${c.port}`, `localhost:${c.port}`] },
      commandPolicy: ALLOW_ALL,
    }),
    check: async (c, r) => {
      assert.match(r.result, /· sandboxed, network only to 127\.0\.0\.1:\d+, localhost:\d+\n/);
      assert.match(r.result, /RAN-allow/);
      assert.deepEqual(c.server.hits.filter((h) => /allow|deny/.test(h)).sort(), ['/allow-plain', '/allow-tunnel']);
      assert.match(r.result, /localhost resolves to (127\.0\.0\.1|::1), an address of this machine/);
      assert.match(r.result, /127\.0\.0\.2: it is not in toolbelt\.sandbox\.allowedDomains/);
    },
  },
  {
    id: 'network-allowlist-ports',
    title: 'network "allowlist": a host listed without a port is reached on 443 (TLS) and 80 (HTTP) only',
    job: (c) => ({
      workspaceRoot: c.fixture.ws,
      command: `curl -s -m 5 http://127.0.0.1:${c.port}/deny-port-plain; curl -s -m 5 -p http://127.0.0.1:${c.port}/deny-port-tunnel; echo RAN-ports`,
      sandbox: { mode: 'auto', network: 'allowlist', allowedDomains: ['127.0.0.1'] },
      commandPolicy: ALLOW_ALL,
    }),
    check: async (c, r) => {
      assert.match(r.result, /RAN-ports/);
      assert.deepEqual(c.server.hits.filter((h) => h.startsWith('/deny-port')), [], r.result);
      assert.match(r.result, /only port 80 is allowed for it; add "127\.0\.0\.1:\d+"/);
    },
  },
  {
    id: 'network-on',
    title: 'network "on": the host network is there',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: `curl -s -m 5 http://127.0.0.1:${c.port}/on`, sandbox: { mode: 'auto', network: 'on' }, commandPolicy: ALLOW_ALL }),
    check: async (c, r) => (assert.match(r.result, /· sandboxed, network on\n/), assert.ok(c.server.hits.includes('/on'), r.result)),
  },
  {
    id: 'mode-auto-unavailable',
    title: 'mode "auto" without a sandbox: the person is asked (unsandboxed) even though a rule allows the command',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: 'touch mode-auto.txt', commandPolicy: ALLOW_ALL, answer: false, unavailable: true }),
    check: async (c, r) => {
      assert.deepEqual(r.asked, ['unsandboxed']);
      assert.equal(await exists(path.join(c.fixture.ws, 'mode-auto.txt')), false);
      assert.match(r.result, /declined/);
    },
  },
  {
    id: 'mode-auto-no-confirm',
    title: 'mode "auto" without a sandbox and nobody to ask: it runs, with the environment still cut to the allow-list',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: 'touch mode-auto-nobody.txt; env', unavailable: true }),
    check: async (c, r) => {
      assert.match(r.result, /· not sandboxed \(no sandbox available\)\n/);
      assert.equal(await exists(path.join(c.fixture.ws, 'mode-auto-nobody.txt')), true);
      noSecret(r);
    },
  },
  {
    id: 'mode-required-unavailable',
    title: 'mode "required" without a sandbox: refused, saying why, and nothing runs',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: 'touch mode-required.txt', sandbox: { mode: 'required', network: 'off' }, commandPolicy: ALLOW_ALL, answer: true, unavailable: true }),
    check: async (c, r) => {
      assert.deepEqual(r.asked, []);
      assert.match(r.result, /toolbelt\.sandbox\.mode is "required" and no sandbox is available here: TOOLBELT_SANDBOX_UNAVAILABLE=1/);
      assert.equal(await exists(path.join(c.fixture.ws, 'mode-required.txt')), false);
    },
  },
  {
    id: 'mode-off',
    title: 'mode "off": as without the sandbox (the person asked as before, the file written)',
    job: (c) => ({ workspaceRoot: c.fixture.ws, command: 'touch mode-off.txt', sandbox: { mode: 'off', network: 'off' }, answer: true }),
    check: async (c, r) => {
      assert.deepEqual(r.asked, ['destructive']);
      assert.match(r.result, /· not sandboxed \(toolbelt\.sandbox\.mode is "off"\)/);
      assert.equal(await exists(path.join(c.fixture.ws, 'mode-off.txt')), true);
    },
  },
  {
    id: 'changed-files',
    title: "a command's result lists what it changed in the workspace, a gitlink it added and index flags that hide changes from git status",
    job: (c) => ({
      workspaceRoot: c.fixture.ws,
      command: [
        'echo RAN-changes',
        "echo \"console.log('changed')\" > src/app.js",
        'echo new > added.txt',
        'git update-index --assume-unchanged package.json',
        'mkdir emb && cd emb && git init -q && git commit -q --allow-empty -m inner && cd .. && git add emb 2>/dev/null',
      ].join('; '),
      commandPolicy: ALLOW_ALL,
    }),
    // Last of the list: it leaves a gitlink and an index flag behind in the fixture's workspace.
    check: async (c, r) => {
      ranByRule(r, 'RAN-changes');
      const changed = /^\[Changed in workspace: (.*)\.\]$/m.exec(r.result)?.[1] ?? '';
      for (const entry of ['M src/app.js', '?? added.txt']) assert.ok(changed.split(', ').includes(entry), `${entry} not listed:\n${r.result}`);
      assert.match(r.result, /^\[New gitlink \(an embedded repository\) in the index: emb\./m);
      assert.match(r.result, /^\[Index flags set \(assume-unchanged or skip-worktree\): package\.json\./m);
      assert.match(git(c.fixture.ws, 'ls-files', '-v', 'package.json'), /^h /, 'the flag is really set: git status would hide a change to it');
    },
  },
];
