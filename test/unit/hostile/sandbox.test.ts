import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { sandboxAvailability } from '../../../src/tools/sandbox/sandboxAvailability';
import { HitServer, IDENTITIES, makeFixture, runJobs, type SandboxFixture } from '../../support/sandboxFixture';
import { CASES, type CaseContext } from './sandboxCases';

// The OS sandbox against hostile commands, each checked by its effect on the host (files, a local
// server's hits, the command's output): once as root (as CI runs) and once as uid 65534 (an
// ordinary user, through setpriv). Every command runs in a runner process of its own with an
// environment full of secrets; see sandboxCases.ts for the commands.
for (const identity of IDENTITIES) {
  describe(`hostile sandbox: run_bash as ${identity.name}`, function () {
    this.timeout(60_000);
    let fixture: SandboxFixture | undefined;
    let server: HitServer | undefined;
    let host: ChildProcess | undefined;
    let context: CaseContext;

    before(async function () {
      const availability = await sandboxAvailability();
      if (!availability.available) console.log(`      no sandbox here, skipped: ${availability.detail}`);
      if (process.platform !== 'linux' || !availability.available) this.skip();
      if (identity.owner && (process.getuid?.() !== 0 || spawnSync('setpriv', ['--version']).status !== 0)) this.skip();
      fixture = await makeFixture(identity);
      server = new HitServer();
      const port = await server.start();
      host = spawn('sleep', ['600'], { stdio: 'ignore' });
      context = { fixture, server, port, hostPid: host.pid! };
    });

    after(async () => {
      host?.kill('SIGKILL');
      await server?.close();
      if (fixture) await fs.rm(fixture.base, { recursive: true, force: true });
    });

    for (const hostile of CASES) {
      it(hostile.title, async () => {
        const results = await runJobs(context.fixture, identity, [{ id: hostile.id, ...hostile.job(context) }]);
        await hostile.check(context, results.get(hostile.id)!);
      });
    }
  });
}
