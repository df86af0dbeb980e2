/*
 * The `toolbelt` command (dist/cli.js, package.json "bin"): Toolbelt's tools and policy outside
 * VS Code — an MCP server, a headless run, policy explain and test, undo, and the agents' hook.
 * No vscode below here.
 */
import { EXIT } from './usage';

if (process.argv[2] === 'hook') {
  // Another agent waits on every answer: its own small bundle beside this one (esbuild.js), none of the core.
  let hook: typeof import('../hook') | undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    hook = require(`${__dirname}/hook.js`) as typeof import('../hook');
  } catch (error) {
    // Exit 1 would let the agent run the call: exit 2 blocks (Claude Code, Codex, Gemini CLI, Cursor), with the reason.
    const reason = `Toolbelt: denied — the hook cannot load (${String(error)}).`;
    process.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } })}\n`);
    process.stderr.write(`${reason}\n`);
    process.exit(2);
  }
  hook.hookMain(process.argv.slice(3));
} else {
  runCommand();
}

function runCommand(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { runCli } = require('./main') as typeof import('./main');
  const controller = new AbortController();
  let stops = 0;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      // A second Ctrl-C does not wait for the tools to stop.
      if (++stops > 1) process.exit(EXIT.interrupted);
      controller.abort();
    });
  }

  runCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signal: controller.signal }).then(
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
