import { realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { hasFlag, flagValue, flagValues, parseArgs, type FlagSpec } from './args';
import { hookAnswer, unknownAgentDeny, type HookAnswer } from './hookAnswers';
import { HookEventError, parseHookEvent } from '../policy/hookEvents';
import { locateRuleIn, type LocatedRule } from '../policy/locatedRule';
import { readSettingsFile, SettingsSnapshot } from './settingsFiles';
import { stateDirFor } from './stateDir';
import type { Verdict } from '../tools/consent';
import { logArguments } from '../tools/logArguments';
import { AGENT_LABELS, decideNativeCall, HOOK_AGENTS, type HookAgent, type NativeCall, type NativeDecision, type NativePolicy } from '../tools/nativeCalls';
import { ToolCallLog, type ToolCallRecord } from '../tools/toolCallLog';
import { acceptAsTheyAre, buildPolicy, readPolicyValues, type PolicySource } from '../policy';
import { nativePolicyOf, PolicyUnreadable } from '../policy/nativeTools';

/**
 * `toolbelt hook AGENT`: one pre-tool-call hook event on stdin, one answer in the agent's format.
 * Fails closed: a policy that cannot be read, an event that is not understood, an error or the
 * time bound (HOOK_BOUND_MS) all answer deny. Never exit 1 (the agents run the call then).
 */
export const HOOK_BOUND_MS = 5000;
// As cliContext.ts names them; not imported from there, which would load the Agent's prompt modules into dist/hook.js.
/** The most of stdin read; an event is a few KB (a Write's content may be large). */
const MAX_EVENT_BYTES = 16 * 1024 * 1024;

export const HOOK_FLAGS: Readonly<Record<string, FlagSpec>> = {
  workspace: { value: true },
  'user-settings': { value: true },
  'state-dir': { value: true },
  'accept-workspace-commands': {},
  'accept-workspace-sandbox': {},
  'run-without-asking': { value: true, repeat: true },
};

export interface HookIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The whole hook's bound; HOOK_BOUND_MS unless a test says otherwise (or TOOLBELT_HOOK_BOUND_MS). */
  boundMs?: number;
}

interface Outcome {
  answer: HookAnswer;
  /** Set once the call is known: what goes into the call log. */
  record?: { log: ToolCallLog; record: ToolCallRecord & Record<string, unknown> };
}

/** Runs the hook; resolves with the exit code after writing the answer. Never rejects. */
export async function runHook(argv: readonly string[], io: HookIo): Promise<number> {
  const started = Date.now();
  const agentName = argv[0];
  if (!agentName || !(HOOK_AGENTS as readonly string[]).includes(agentName)) {
    return emit(io, unknownAgentDeny(`Toolbelt: denied — "toolbelt hook ${agentName ?? ''}" names no agent Toolbelt knows (${HOOK_AGENTS.join(', ')}); fix the hook line.`));
  }
  const agent = agentName as HookAgent;
  const bound = io.boundMs ?? (Number(io.env.TOOLBELT_HOOK_BOUND_MS) || HOOK_BOUND_MS);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ answer: failClosed(agent, `the hook took longer than ${bound} ms`) }), bound);
  });
  const decided = decide(agent, argv.slice(1), io, started).catch((error: unknown): Outcome => ({ answer: failClosed(agent, describe(error)) }));
  const outcome = await Promise.race([decided, timedOut]);
  const code = emit(io, outcome.answer);
  if (outcome.record) {
    outcome.record.log.append(outcome.record.record);
    // The log is written within the bound too; a log that cannot be written is said on stderr, the answer stands.
    await Promise.race([outcome.record.log.flush(), timedOut]);
  }
  clearTimeout(timer);
  return code;
}

async function decide(agent: HookAgent, rest: readonly string[], io: HookIo, started: number): Promise<Outcome> {
  const parsed = parseArgs(rest, HOOK_FLAGS);
  if (parsed.errors.length > 0) throw new HookEventError(`the hook line's options: ${parsed.errors.join(' ')}`);
  if (parsed.positionals.length > 0) throw new HookEventError(`the hook line has extra words: ${parsed.positionals.join(' ')}`);
  const text = await readAll(io.stdin, MAX_EVENT_BYTES);
  const event = parseHookEvent(agent, text, io.env);
  if (event.observeOnly) return { answer: { stdout: '', stderr: '', code: 0 } };
  const given = flagValue(parsed, 'workspace');
  // The agent's project folder where it names one (Claude Code's CLAUDE_PROJECT_DIR stays the project's when a command cd'd elsewhere).
  const projectDir = agent === 'claude-code' ? io.env.CLAUDE_PROJECT_DIR : agent === 'gemini-cli' ? io.env.GEMINI_PROJECT_DIR : undefined;
  const root = workspaceRoot(given ? path.resolve(io.cwd, given) : (projectDir || event.cwd || io.cwd));
  const userFile = flagValue(parsed, 'user-settings') ?? (io.env.TOOLBELT_USER_SETTINGS || undefined);
  const stateBase = flagValue(parsed, 'state-dir') ?? (io.env.TOOLBELT_STATE_DIR || undefined);
  const { policy, files } = readPolicy(root, {
    userFile: userFile ? path.resolve(io.cwd, userFile) : undefined,
    acceptWorkspaceCommands: hasFlag(parsed, 'accept-workspace-commands'),
    acceptWorkspaceSandbox: hasFlag(parsed, 'accept-workspace-sandbox'),
    runWithoutAsking: new Set(flagValues(parsed, 'run-without-asking').map((name) => name.trim())),
  });
  const call = event.call;
  const decision = decideNativeCall(call, policy);
  const located = locateRuleIn(files, decision.rule);
  const { verdict, reason } = finalAnswer(call, decision, located);
  const log = callLog(root, stateBase ? path.resolve(io.cwd, stateBase) : undefined, io);
  const record = {
    time: new Date(started).toISOString(),
    chatId: call.sessionId ?? 'none',
    caller: AGENT_LABELS[agent],
    tool: call.tool,
    args: logArguments(call.kind === 'write' ? withoutContent(call.args) : call.args, { sensitiveGlobs: policy.sensitiveGlobs }),
    status: verdict === 'deny' ? ('refused' as const) : ('ok' as const),
    durationMs: Date.now() - started,
    resultChars: 0,
    hook: agent,
    decision: verdict,
    ...(verdict !== decision.verdict ? { policyVerdict: decision.verdict } : {}),
    reason,
    rule: located.text,
  };
  return { answer: hookAnswer(agent, verdict, reason), ...(log ? { record: { log, record } } : {}) };
}

/** An ask the agent cannot put to a person becomes a deny, saying why and how to allow the call. */
function finalAnswer(call: NativeCall, decision: NativeDecision, rule: LocatedRule): { verdict: Verdict; reason: string } {
  const where = rule.text;
  if (decision.verdict === 'allow') return { verdict: 'allow', reason: `Toolbelt: allowed — ${decision.reason} (${where}).` };
  if (decision.verdict === 'deny') return { verdict: 'deny', reason: `Toolbelt: denied — ${decision.reason} (${where}).` };
  const noAsk = whyNoAsk(call, decision);
  if (!noAsk) return { verdict: 'ask', reason: `Toolbelt asks: ${decision.reason} (${where}).` };
  return { verdict: 'deny', reason: `Toolbelt: denied — ${decision.reason} (${where}). The policy asks a person before this call, and ${noAsk}, so it was not run. ${howToAllow(call, decision)}` };
}

function whyNoAsk(call: NativeCall, decision: NativeDecision): string | undefined {
  if (!call.canAsk) {
    switch (call.agent) {
      case 'claude-code':
        return 'Claude Code cannot ask in this permission mode (bypassPermissions / dontAsk)';
      case 'codex':
        return "Codex runs a call its hook answers with ask (only deny stops it)";
      case 'gemini-cli':
        return 'Gemini CLI waits forever on an ask in a headless or yolo run (and this run is not an interactive one Toolbelt can see)';
      case 'copilot':
        return 'Copilot CLI has no one to answer an ask in this run';
      case 'cursor':
        return `Cursor's ${call.tool === 'read_file' ? 'beforeReadFile' : 'preToolUse'} hook answers allow or deny only`;
    }
  }
  if (call.agent === 'claude-code' && decision.asks === 'protected') return "Claude Code's ask does not stop a write to its protected folders in every mode";
  return undefined;
}

function howToAllow(call: NativeCall, decision: NativeDecision): string {
  switch (decision.asks) {
    case 'command':
      return 'To let it run: add the command to toolbelt.runBash.allowedCommands in your own settings (or add --accept-workspace-commands to the hook line to apply the workspace\'s list), or run it yourself.';
    case 'sensitive':
      return 'To let the agent read it: take the pattern out of toolbelt.tools.sensitiveFiles, or read the file yourself and give the agent what it needs.';
    case 'protected':
      return 'Make this change yourself, or with an agent session that asks you before it writes.';
    case 'external':
      return `To let it run: add --run-without-asking ${call.mcp ? `${call.mcp.server}/${call.mcp.tool}` : '<server>/<tool>'} to the hook line.`;
    case 'network':
      return 'To let it run: set toolbelt.sandbox.network to "on" in your own settings.';
    default:
      return 'Run the agent where it can ask you (not headless, bypass or yolo), or do this yourself.';
  }
}

interface PolicyChoices {
  userFile?: string;
  acceptWorkspaceCommands: boolean;
  acceptWorkspaceSandbox: boolean;
  runWithoutAsking: ReadonlySet<string>;
}

/** The workspace's policy as `policy explain` reads it; any problem in it is a PolicyUnreadable (fail closed). */
export function readPolicy(root: string, choices: PolicyChoices): { policy: NativePolicy; files: SettingsSnapshot } {
  const workspace = readSettingsFile(path.join(root, '.vscode', 'settings.json'), '.vscode/settings.json');
  const user = choices.userFile ? readSettingsFile(choices.userFile, choices.userFile) : undefined;
  if (user && !user.exists) throw new PolicyUnreadable(user.problems[0] ?? `${user.path}: cannot be read.`);
  const files = new SettingsSnapshot(workspace, user);
  const source: PolicySource = { levels: (key) => files.levels(key) };
  const values = readPolicyValues(source);
  const policy = buildPolicy(values, acceptAsTheyAre(values, { commands: choices.acceptWorkspaceCommands, sandbox: choices.acceptWorkspaceSandbox }));
  return { policy: nativePolicyOf(root, policy, choices.runWithoutAsking, files.problems()), files };
}

function workspaceRoot(given: string): string {
  let real: string;
  try {
    if (!statSync(given).isDirectory()) throw new PolicyUnreadable(`the workspace ${given} is not a folder`);
    real = realpathSync(given);
  } catch (error) {
    if (error instanceof PolicyUnreadable) throw error;
    throw new PolicyUnreadable(`the workspace ${given} does not exist`);
  }
  if (path.parse(real).root === real) throw new PolicyUnreadable('the workspace is the root of the file system; run the agent in a project folder or pass --workspace DIR');
  return real;
}

/** A write's new text is not the log's to keep (as write_file's content): its size instead. */
function withoutContent(args: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) kept[key] = typeof value === 'string' && /content|string|text|patch|command|input/i.test(key) && !/path/i.test(key) ? `[${value.length} characters]` : value;
  return kept;
}

/** The CLI's call log for this workspace; a state folder that cannot be used is said on stderr (the answer stands). */
function callLog(root: string, base: string | undefined, io: HookIo): ToolCallLog | undefined {
  try {
    return new ToolCallLog({ folder: stateDirFor(root, base, io.env), onError: (error) => io.stderr.write(`toolbelt hook: could not write the call log: ${String(error)}\n`) });
  } catch (error) {
    io.stderr.write(`toolbelt hook: no call log: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  }
}

function failClosed(agent: HookAgent, why: string): HookAnswer {
  return hookAnswer(agent, 'deny', `Toolbelt: denied — Toolbelt's hook could not decide this call (${why}), and a call it cannot judge does not run.`);
}

function describe(error: unknown): string {
  if (error instanceof HookEventError || error instanceof PolicyUnreadable) return error.message;
  return `an error: ${error instanceof Error ? error.message : String(error)}`;
}

function emit(io: HookIo, answer: HookAnswer): number {
  if (answer.stdout) io.stdout.write(answer.stdout);
  if (answer.stderr) io.stderr.write(answer.stderr);
  return answer.code;
}

function readAll(stream: Readable, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > max) {
        stream.destroy();
        reject(new HookEventError(`the hook event is over ${max} bytes`));
        return;
      }
      chunks.push(buffer);
    });
    stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.once('error', reject);
  });
}
