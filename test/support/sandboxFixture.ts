import { execFileSync, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { SandboxJob, SandboxJobResult } from './sandboxRunner';

/** Every secret of the fixture holds this, so one search finds any of them in an output. */
export const SECRET = 'S3CR3T';

/** The folders of one identity's fixture: a home, a workspace beside a sibling, a bare repository. */
export interface SandboxFixture {
  base: string;
  home: string;
  sibling: string;
  /** A workspace with .vscode/, a repository with hooks, sensitive files. */
  ws: string;
  /** A workspace without .vscode/, whose repository has no hooks folder. */
  bare: string;
  runner: string;
}

export interface Identity {
  name: 'root' | 'uid 65534';
  /** Prefix of the runner's command line. */
  wrap: string[];
  owner?: { uid: number; gid: number };
}

export const IDENTITIES: Identity[] = [
  { name: 'root', wrap: [] },
  { name: 'uid 65534', wrap: ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'], owner: { uid: 65534, gid: 65534 } },
];

const HOME_FILES: Record<string, string> = {
  '.ssh/id_rsa': `${SECRET}-ssh`,
  '.aws/credentials': `${SECRET}-aws`,
  '.npmrc': `//registry.npmjs.org/:_authToken=${SECRET}-npmrc`,
  '.netrc': `machine example.com password ${SECRET}-netrc`,
  '.git-credentials': `https://u:${SECRET}-gitcred@example.com`,
  '.config/gh/hosts.yml': `oauth_token: ${SECRET}-gh`,
  '.docker/config.json': `{"auths":{"x":{"auth":"${SECRET}-docker"}}}`,
  '.kube/config': `token: ${SECRET}-kube`,
  '.gnupg/private.key': `${SECRET}-gnupg`,
  'extra/token': `${SECRET}-extra`,
  '.bashrc': '# original bashrc\n',
  // Not on any list of credential locations: hidden because the whole home folder is.
  'code/other-project/.env': `${SECRET}-sibling-project`,
  'code/other-project/notes.txt': `${SECRET}-sibling-notes`,
  '.bash_history': `export TOKEN=${SECRET}-history`,
  '.config/git/credentials': `https://u:${SECRET}-xdg-gitcred@example.com`,
  '.pgpass': `localhost:5432:*:u:${SECRET}-pgpass`,
  '.vault-token': `${SECRET}-vault`,
  '.config/Code/User/globalStorage/state.vscdb': `${SECRET}-editor-state`,
  // A PATH entry under the home folder (runnerEnvironment puts it first): shown again, read-only.
  'tools/bin/hello-tool': '#!/bin/sh\necho hello-tool-ran\n',
  '.gitconfig': '[user]\n\tname = Sandbox Test\n\temail = sandbox@example.com\n[safe]\n\tdirectory = *\n',
};

const WORKSPACE_FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'fixture', version: '1.0.0', scripts: { test: 'node -e "console.log(\'npm-test-ran\')"' } }),
  Makefile: 'all:\n\t@echo make-ran\n',
  'src/app.js': "console.log('app');\n",
  '.gitignore': '.env\nconfig/\nkeys/\nprivate/\nnested/\n',
  '.env': `API_KEY=${SECRET}-dotenv\n`,
  'config/.env.local': `${SECRET}-envlocal\n`,
  'keys/server.pem': `${SECRET}-pem\n`,
  'private/data.txt': `${SECRET}-private\n`,
  '.vscode/settings.json': '{"original": true}\n',
  'project.code-workspace': '{"folders": [], "original": true}\n',
  // What the editor, CI or another agent runs or obeys later (toolbelt.sandbox.readOnlyPaths and its built-in list).
  '.github/workflows/ci.yml': 'original: ci\n',
  '.husky/pre-commit': 'original: hook\n',
  '.envrc': 'original: direnv\n',
  '.claude/settings.json': '{"original": "claude"}\n',
  '.mcp.json': '{"original": "mcp"}\n',
  'sub/.vscode/settings.json': '{"original": "nested"}\n',
  'scripts/release.sh': 'original: release\n',
  // Hidden only by a toolbelt.sandbox.hiddenPaths pattern (the hidden-patterns case).
  'docs/plan.secret.txt': 'PATTERN-HIDDEN-CONTENT\n',
};

/**
 * Lays out the fixture under /var/tmp — not /tmp, which the sandbox replaces with a private one
 * (a secret there would be out of reach for the wrong reason) — owned by `owner`, and bundles
 * the runner into it so any user can run it.
 */
export async function makeFixture(identity: Identity): Promise<SandboxFixture> {
  const base = await fs.mkdtemp('/var/tmp/toolbelt-sandbox-test-');
  await fs.chmod(base, 0o755);
  const fixture: SandboxFixture = { base, home: path.join(base, 'home'), sibling: path.join(base, 'sibling'), ws: path.join(base, 'workspace'), bare: path.join(base, 'bare'), runner: path.join(base, 'runner.js') };
  await writeFiles(fixture.home, HOME_FILES);
  await fs.chmod(path.join(fixture.home, 'tools/bin/hello-tool'), 0o755);
  await writeFiles(fixture.sibling, { 'notes.txt': 'sibling original\n' });
  await writeFiles(fixture.ws, WORKSPACE_FILES);
  await writeFiles(fixture.bare, { 'readme.txt': 'bare\n' });
  await writeFiles(path.join(fixture.ws, 'nested'), { 'lib.js': 'nested\n' });
  for (const repo of [fixture.ws, path.join(fixture.ws, 'nested'), fixture.bare]) {
    git(repo, 'init', '-q');
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'initial');
  }
  await fs.rm(path.join(fixture.bare, '.git', 'hooks'), { recursive: true, force: true });
  // What the bare repository's config names in the tree: git on the host runs these later.
  await writeFiles(fixture.bare, { 'githooks/pre-commit': 'original: hook\n', 'team.gitconfig': '[core]\n\tpager = cat\n', 'tools/ssh.sh': 'original: ssh\n' });
  git(fixture.bare, 'config', 'core.hooksPath', 'githooks');
  git(fixture.bare, 'config', 'core.sshCommand', 'tools/ssh.sh -v');
  git(fixture.bare, 'config', 'include.path', '../team.gitconfig');
  git(fixture.bare, 'config', '--add', 'include.path', '../absent.gitconfig');
  bundleRunner(fixture.runner);
  if (identity.owner) execFileSync('chown', ['-R', `${identity.owner.uid}:${identity.owner.gid}`, base]);
  return fixture;
}

export function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'safe.directory=*', '-C', repo, ...args], { encoding: 'utf8' });
}

async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  await fs.mkdir(root, { recursive: true });
  for (const [relative, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, relative)), { recursive: true });
    await fs.writeFile(path.join(root, relative), content);
  }
}

/** One self-contained file (the tools and their npm dependencies), readable by any user. */
function bundleRunner(outfile: string): void {
  const root = path.resolve(__dirname, '..', '..', '..');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  esbuild.buildSync({ entryPoints: [path.join(root, 'test', 'support', 'sandboxRunner.ts')], bundle: true, platform: 'node', format: 'cjs', outfile, logLevel: 'error' });
}

/** The environment the runner starts with: what an extension host might hold, secrets included. */
export function runnerEnvironment(fixture: SandboxFixture, identity: Identity): Record<string, string> {
  return {
    PATH: `${path.join(fixture.home, 'tools/bin')}:/usr/local/bin:/usr/bin:/bin`,
    HOME: fixture.home,
    LANG: 'C.UTF-8',
    USER: identity.owner ? 'nobody' : 'root',
    OPENAI_API_KEY: `${SECRET}-openai-env`,
    GITHUB_TOKEN: `${SECRET}-github-env`,
    AWS_SECRET_ACCESS_KEY: `${SECRET}-aws-env`,
    MY_SETTING: 'visible-value',
    // A corporate network's certificate authority: a file name, passed through.
    NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/corp-ca.pem',
  };
}

/** Runs the jobs in one runner process as the identity, its environment with `env` on top; their results by id. */
export function runJobs(fixture: SandboxFixture, identity: Identity, jobs: SandboxJob[], env: Record<string, string> = {}): Promise<Map<string, SandboxJobResult>> {
  const jobsFile = path.join(fixture.base, `jobs-${Date.now()}.json`);
  return fs.writeFile(jobsFile, JSON.stringify(jobs), { mode: 0o644 }).then(
    () =>
      new Promise((resolve, reject) => {
        const [file, ...args] = [...identity.wrap, process.execPath, fixture.runner, jobsFile];
        const child = spawn(file, args, { cwd: fixture.base, env: { ...runnerEnvironment(fixture, identity), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
        child.on('error', reject);
        child.on('close', (code) => {
          if (code !== 0) return reject(new Error(`the runner failed (${code}): ${err}`));
          resolve(new Map((JSON.parse(out) as SandboxJobResult[]).map((r) => [r.id, r])));
        });
      }),
  );
}

/** A local HTTP server that records the path of every request it gets. */
export class HitServer {
  readonly hits: string[] = [];
  private readonly server = http.createServer((request, response) => {
    this.hits.push(request.url ?? '');
    response.end('hit\n');
  });

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    return (this.server.address() as { port: number }).port;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
