/** The exit codes of every command (documented in the usage text and docs/AGENTS.md). */
export const EXIT = Object.freeze({
  ok: 0,
  /** A check failed: a policy example did not match, nothing to undo, or an unexpected error. */
  failed: 1,
  /** An unknown option, a missing argument, unreadable JSON or settings. */
  usage: 2,
  /** `run`: a tool call was refused (denied, or it would ask and no --approve covered it). */
  refused: 3,
  /** `run`: the model provider failed. */
  provider: 4,
  /** `run`: the turn stopped before an answer (its limit of tool rounds). */
  incomplete: 5,
  interrupted: 130,
});

export const USAGE = `Usage: toolbelt <command> [options]

Toolbelt's tools and policy outside VS Code. The workspace's .vscode/settings.json decides which
tools exist and what they may do; your own choices come from the options below or from a
settings file you name, never from the workspace alone.

Commands:
  mcp                             Serve the workspace's active tools over MCP (stdio)
  run PROMPT                      Run the Agent once, headless, with the workspace's tools and model
  policy explain TOOL ARGS_JSON   Say whether a call is allowed, asks or is denied, why, and where the rule is
  policy test [--agents]          Check the examples in toolbelt.policy.tests (--agents: also through each
                                  protected agent's own tool calls and hook, and Codex's own rules checker)
  undo                            Undo the last call group made through toolbelt mcp or toolbelt run
  hook AGENT                      Answer another agent's pre-tool-call hook (event JSON on stdin) from this
                                  workspace's policy, in the agent's format: claude-code, codex, gemini-cli,
                                  copilot, cursor. Any error, unreadable policy or 5 s without an answer: deny
  agents install|status|uninstall [AGENT… | --all]
                                  Protect other agents (claude-code, codex, gemini-cli, copilot, cursor) with
                                  the workspace's policy: their hook that runs \`toolbelt hook AGENT\`, and their
                                  own sandbox and permission settings; say what each enforces; take it out again

Every command:
  --workspace DIR                 The workspace folder (default: the current folder)
  --user-settings FILE            Your own settings, e.g. VS Code's user settings.json (also
                                  TOOLBELT_USER_SETTINGS): toolbelt.runBash.*, toolbelt.tools.sensitiveFiles,
                                  toolbelt.approvals.writes, toolbelt.mcp.servers, toolbelt.provider/model/baseUrl
  --state-dir DIR                 Where undo records and the call log live (also TOOLBELT_STATE_DIR;
                                  default $XDG_STATE_HOME/toolbelt/<workspace>)
  --verbose                       Say more on stderr (servers started, questions answered)
  --help, -h                      This text
  --version                       Toolbelt's version

Your choices (mcp, run, policy):
  --enable TOOL                   Switch on a tool that stays off until you say so (remove, run_bash); repeatable
  --approve-server NAME           Let a server of the workspace's .vscode/mcp.json or .vscode/toolbelt.mcp.json start,
                                  as it is defined now, and any server start without a sandbox where none is
                                  available; repeatable
  --accept-workspace-commands     Apply the workspace's toolbelt.runBash.allowedCommands, as they are now
  --accept-workspace-sandbox      Apply what the workspace's toolbelt.sandbox.* loosens, as it is now
  --run-without-asking TOOL       Let an MCP server's tool (<server>/<tool>) run without asking each call; repeatable

mcp:
  --no-builtins                   Serve only the MCP servers' tools (VS Code's chat has the builtins as toolbelt_* tools)

run:
  --json                          One JSON object per line on stdout instead of text
  --approve REASON                Approve the calls that would ask for REASON: destructive, protected, sensitive,
                                  command, write, external or unsandboxed; repeatable. Any other ask is refused.
  --provider NAME  --model NAME  --base-url URL  --api-key KEY
                                  Instead of the settings' model (keys also from OPENAI_API_KEY, GEMINI_API_KEY)

policy explain:
  --json                          The decision as one JSON object

hook (the hook line may add --workspace, --user-settings, --state-dir, --accept-workspace-commands,
--accept-workspace-sandbox and --run-without-asking; the workspace defaults to the event's cwd)

agents:
  --all                           Every agent (status without AGENT checks every agent too)
  --json                          One JSON object instead of text
  install backs up a file it changes (<file>.toolbelt-backup, once) and refuses, writing nothing,
  a link that leads out of the workspace, a file that is not JSON or names a key twice (exit 1).
  status exits 1 when an agent's files drifted from the policy, or a named agent is not protected.

Exit codes:
  0    success
  1    a check failed: a policy example did not match, nothing to undo, an agent's files refused or
       drifted, an unexpected error
  2    usage error: an unknown option, a missing argument, unreadable JSON or settings
  3    run: a tool call was refused (denied, or it would ask and no --approve covered it)
  4    run: the model provider failed
  5    run: the turn stopped before an answer (its limit of tool rounds)
  130  interrupted
`;

/** A usage error: the message, then how to get help. */
export class UsageError extends Error {
  override name = 'UsageError';
}
