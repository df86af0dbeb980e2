/*
 * The `toolbelt` command's own work (dist/cliMain.js): an MCP server, a headless run, policy
 * explain and test, undo. dist/cli.js (src/cli/cli.ts) loads it for every command but `hook`.
 */
import { EXIT } from './usage';
import { runCli } from './main';

export function runCommand(argv: readonly string[]): void {
  const controller = new AbortController();
  let stops = 0;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      // A second Ctrl-C does not wait for the tools to stop.
      if (++stops > 1) process.exit(EXIT.interrupted);
      controller.abort();
    });
  }

  runCli(argv, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signal: controller.signal }).then(
    (code) => {
      process.exitCode = controller.signal.aborted && code === EXIT.ok ? EXIT.interrupted : code;
      // Whatever a provider's connection pool or a stopped server leaves behind does not hold the exit up.
      setTimeout(() => process.exit(), 2000).unref();
    },
    (error: unknown) => {
      process.stderr.write(`toolbelt: ${String(error)}\n`);
      process.exitCode = EXIT.failed;
    },
  );
}
