/*
 * `toolbelt hook AGENT` (dist/hook.js): the answer to every tool call another agent makes, so it
 * loads apart from the CLI's core (no MCP SDK, no providers, no tool registry). dist/cli.js hands
 * `hook` here before it loads anything else.
 */
import { runHook } from './cli/hookCommand';

export function hookMain(argv: readonly string[]): void {
  runHook(argv, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() }).then(
    (code) => process.exit(code),
    // runHook never rejects; should it, the agents run the call after exit 1, so this is exit 2 (a block) with the reason.
    (error: unknown) => {
      process.stderr.write(`Toolbelt: denied — the hook failed (${String(error)}).\n`);
      process.exit(2);
    },
  );
}
