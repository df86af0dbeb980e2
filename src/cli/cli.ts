/*
 * The `toolbelt` command (dist/cli.js, package.json "bin"): Toolbelt's tools and policy outside
 * VS Code. A few lines that load one bundle beside them: dist/hook.js for `toolbelt hook` (another
 * agent waits on each of its answers, so it loads none of the core), dist/cliMain.js (the core
 * and src/cli, src/cli/cliMain.ts) for every other command. No vscode below here.
 */
const command = process.argv[2];

if (command === 'hook') {
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
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require(`${__dirname}/cliMain.js`) as typeof import('./cliMain')).runCommand(process.argv.slice(2));
}
