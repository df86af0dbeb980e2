import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { Readable } from 'node:stream';
import { builtin } from './builtinTool';
import { describeRefusal, judgeCommand, partsToApprove, type CommandJudgement, type CommandPart } from './command';
import { unasked, type ConsentPlan, type PolicyPart, type PolicyRule } from './consent';
import { LIMITS } from './manifest';
import { processIsolation, type IsolationKind } from './sandbox';
import { PidNamespace } from './sandbox';
import { NamespaceKiller, ProcessTracker, type TreeKiller } from './sandbox';
import { describeContainment, effectiveSandbox, sandboxAvailability, sandboxDecision, sandboxEngine, type SandboxDecision } from './sandbox';
import { sandboxEnvironment } from './sandbox';
import { prepareSandbox, sandboxRequestFor, type PreparedSandbox } from './sandbox';
import { NO_NETWORK_ENV, sandboxHints } from './sandbox';
import { describeChanges, workspaceState } from './command';
import { SandboxKiller, spawnSandboxed } from './sandbox';
import type { SandboxSetting, ToolContext } from './types';
import { resolveWorkspacePath } from './workspacePaths';

/** After SIGTERM, how long the process tree has to exit before SIGKILL (short, so Stop ends a call within ~1 s). */
const KILL_GRACE_MS = 500;
/** After bash exits, how long output may keep draining before background holders are stopped. */
const DRAIN_MS = 500;
/** After the final SIGKILL, how long to wait for the output pipes to close before giving up on them. */
const CLOSE_GRACE_MS = 1000;
/** Set in every command's environment so its processes can be found even after they detach. */
const MARKER_VARIABLE = 'TOOLBELT_RUN_ID';

/** Keeps the first and last halves of a stream of output within a character budget. */
export class HeadTailBuffer {
  private head = '';
  private tail = '';
  private dropped = 0;

  constructor(private readonly budget: number) {}

  append(text: string): void {
    const half = Math.floor(this.budget / 2);
    if (this.head.length < half) {
      const room = half - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (!text) return;
    this.tail += text;
    if (this.tail.length > half) {
      this.dropped += this.tail.length - half;
      this.tail = this.tail.slice(this.tail.length - half);
    }
  }

  toString(): string {
    if (this.dropped === 0) return this.head + this.tail;
    return `${this.head}\n\n[... ${this.dropped.toLocaleString('en')} characters of output left out ...]\n\n${this.tail}`;
  }
}

interface BashPlan {
  command: string;
  cwd: string;
  /** The sandbox setting as consent read it, and what it decided; the run follows both. */
  sandbox: SandboxSetting;
  decision: SandboxDecision;
}

/**
 * Without command rules every command asks (`destructive`); with them a denied part refuses the
 * call (with or without a person), all parts allowed runs it unasked, and otherwise the parts no
 * rule allows are asked about. Nobody to ask: it runs — enabling the tool was the consent, and
 * only a deny rule says otherwise. The OS sandbox comes first (see sandboxConsent).
 */
async function bashConsent(args: Record<string, unknown>, ctx: ToolContext, signal?: AbortSignal): Promise<ConsentPlan<BashPlan>> {
  const command = args.command as string;
  const cwd = (await resolveWorkspacePath(ctx, '.', { signal })).absolute;
  const summary = `Run \`${command}\``;
  const sandbox = effectiveSandbox(ctx.sandbox);
  const decision = sandboxDecision(sandbox, await sandboxAvailability(), summary);
  const plan = sandboxConsent(ruleConsent(command, cwd, ctx, { sandbox, decision }), decision, summary);
  if (decision.kind === 'sandboxed') for (const question of plan.questions) question.containment = describeContainment(sandbox, true);
  return plan;
}

function ruleConsent(command: string, cwd: string, ctx: ToolContext, sandbox: Pick<BashPlan, 'sandbox' | 'decision'>): ConsentPlan<BashPlan> {
  const plan = unasked('run_bash', { command, cwd, ...sandbox });
  const summary = `Run \`${command}\``;
  const policy = ctx.commandPolicy;
  if (!policy) {
    plan.questions.push({ reason: 'destructive', summary, declined: `The user declined: ${summary}. Nothing was changed.`, rule: NO_RULES });
    plan.parts = judgeCommand(command, NO_POLICY).parts.map((part) => ({ text: part.text, verdict: 'ask', reason: 'no command rules are set, so every command asks', rule: NO_RULES }));
    return plan;
  }
  const judgement = judgeCommand(command, policy);
  plan.parts = judgement.parts.map(policyPart);
  if (judgement.verdict === 'deny') {
    plan.refusal = describeRefusal(judgement);
    plan.refusedBy = plan.parts.find((part) => part.verdict === 'deny')?.rule;
  } else if (judgement.verdict === 'allow') {
    plan.allowedByRule = 'toolbelt.runBash.allowedCommands';
    plan.allowedBy = { setting: 'toolbelt.runBash.allowedCommands' };
  } else {
    const parts = partsToApprove(judgement);
    const unallowed = parts.length > 0 ? ` — no rule allows ${parts.map((p) => `\`${p.text}\``).join(', ')}` : '';
    const problem = judgement.problem ? ` — ${judgement.problem}` : '';
    plan.questions.push({
      reason: 'command',
      summary: `${summary}${problem}${unallowed}`,
      parts: parts.map((p) => p.text),
      declined: `The user declined: ${summary}. Nothing was run.`,
      rule: askRule(judgement),
    });
  }
  return plan;
}

/**
 * `mode: 'required'` without a sandbox refuses, saying why. `auto` without one asks once, with
 * reason `unsandboxed`, in place of whatever the rules would ask — even when they allow every
 * part, since what a rule allows was judged for a sandboxed command; a deny rule still refuses.
 */
function sandboxConsent(plan: ConsentPlan<BashPlan>, decision: SandboxDecision, summary: string): ConsentPlan<BashPlan> {
  if (decision.kind === 'refuse') {
    plan.refusal = decision.message;
    plan.refusedBy = { setting: 'toolbelt.sandbox.mode', entry: 'required' };
    plan.questions = [];
  } else if (decision.kind === 'ask' && plan.refusal === undefined) {
    const parts = plan.questions.find((q) => q.reason === 'command')?.parts;
    plan.questions = [{ reason: 'unsandboxed', summary: decision.summary, ...(parts && { parts }), declined: `The user declined: ${summary} without a sandbox. Nothing was run.`, rule: UNSANDBOXED }];
    delete plan.allowedByRule;
    delete plan.allowedBy;
  }
  return plan;
}

// Where each part's verdict comes from, for `toolbelt policy explain`.
const NO_POLICY = Object.freeze({ allowed: [], denied: [] });
const NO_RULES: PolicyRule = { builtin: 'run_bash asks before every command while no toolbelt.runBash rules are set' };
const UNCOVERED: PolicyRule = { builtin: 'a part no allow rule covers (or one that writes files) asks' };
const UNSANDBOXED: PolicyRule = { builtin: 'with toolbelt.sandbox.mode "auto" and no OS sandbox available, every command asks' };
const HARMLESS: PolicyRule = { builtin: 'a part that changes nothing (an assignment, true, test) or only runs allowed commands (eval, sh -c) runs' };
const UNREADABLE: PolicyRule = { builtin: 'with toolbelt.runBash.deniedCommands set, code the rules cannot read (inline interpreter code, strings or names only known when run) is refused' };

function policyPart(part: CommandPart): PolicyPart {
  const rule: PolicyRule =
    part.verdict === 'ask' ? UNCOVERED
      : part.rule === undefined ? (part.verdict === 'deny' ? UNREADABLE : HARMLESS)
        : { setting: part.verdict === 'deny' ? 'toolbelt.runBash.deniedCommands' : 'toolbelt.runBash.allowedCommands', entry: part.rule };
  return { text: part.text, verdict: part.verdict, reason: part.reason, rule };
}

function askRule(judgement: CommandJudgement): PolicyRule {
  return judgement.problem !== undefined && judgement.parts.every((part) => part.verdict !== 'ask') ? { builtin: 'a command that cannot be fully analysed asks' } : UNCOVERED;
}

export const runBash = builtin(bashConsent, async (args, ctx, { signal, plan, ran }) => {
  const timeoutSeconds = (args.timeoutSeconds as number | undefined) ?? LIMITS.bashDefaultTimeoutSeconds;
  const { command, cwd, sandbox, decision } = plan.prepared;
  const containment = describeContainment(sandbox, decision.kind === 'sandboxed');
  if (ran) ran.containment = containment;
  const request = sandboxRequestFor(ctx, cwd);
  const before = workspaceState(request.roots, signal);
  let result: string;
  let hints: string[] = [];
  if (decision.kind !== 'sandboxed') {
    // Without a sandbox the environment is still cut to the allow-list, unless the sandbox is off altogether.
    const env = decision.kind === 'ask' ? sandboxEnvironment(process.env, sandbox.env ?? [], {}) : undefined;
    await before;
    result = await runCommand(command, cwd, timeoutSeconds * 1000, signal, { containment, env });
  } else {
    const engine = await sandboxEngine();
    if (!engine) throw new Error('The sandbox became unavailable; nothing was run.');
    const fixedEnv = { ...COMMAND_ENV, ...(sandbox.network === 'off' ? NO_NETWORK_ENV : {}) };
    const [prepared] = await Promise.all([prepareSandbox({ ...request, setting: sandbox, fixedEnv, signal }, engine), before]);
    result = await runCommand(command, cwd, timeoutSeconds * 1000, signal, { sandbox: prepared, containment });
    // Only a failed command gets hints: its output says why, the hint says which setting would allow it.
    if (!/^Exit code: 0 /.test(result)) hints = sandboxHints(result, sandbox, request.roots, cwd);
  }
  const changes = await describeChanges(await before, await workspaceState(request.roots));
  const notes = [...changes, ...hints];
  return notes.length > 0 ? `${result}\n\n${notes.map((note) => `[${note}]`).join('\n')}` : result;
});

export interface RunCommandOptions {
  /** Use this mechanism instead of the detected one (tests force 'process-group'). */
  isolation?: IsolationKind;
  /** Run inside this sandbox (prepareSandbox); it is disposed when the command is over. */
  sandbox?: PreparedSandbox;
  /** How the call is contained, added to the result's first line (`· sandboxed, network off`). */
  containment?: string;
  /** The environment of an unsandboxed command (`process.env` by default); a sandbox brings its own. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** What every command's environment says, sandboxed or not: no colours, no pagers, no prompts. */
const COMMAND_ENV: Readonly<Record<string, string>> = Object.freeze({ TERM: 'dumb', NO_COLOR: '1', PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' });

/**
 * Runs `bash -c command` with stdin closed, contained as tightly as the machine allows (see
 * processIsolation); on timeout or abort every process it started is killed. Rejects when bash
 * cannot be started at all.
 */
export async function runCommand(command: string, cwd: string, timeoutMs: number, signal?: AbortSignal, options: RunCommandOptions = {}): Promise<string> {
  const { sandbox } = options;
  const isolation = sandbox ? undefined : await processIsolation({ force: options.isolation });
  if (signal?.aborted) await sandbox?.dispose();
  signal?.throwIfAborted();
  // A namespace that fails to open now (it worked at detection) leaves this call to the fallback.
  const namespace = isolation?.unshareArgs ? await PidNamespace.open(isolation.unshareArgs).catch(() => undefined) : undefined;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const output = new HeadTailBuffer(LIMITS.bashOutputMaxChars);
    const marker = randomUUID();
    const env = { ...(options.env ?? process.env), ...COMMAND_ENV, [MARKER_VARIABLE]: marker };
    const [file, argv] = namespace ? ['nsenter', [...namespace.enterArgs(cwd), '--', 'bash', '-c', command]] : ['bash', ['-c', command]];
    const child = sandbox
      ? (spawnSandboxed(sandbox, ['bash', '-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'] }) as ChildProcessByStdio<null, Readable, Readable>)
      : spawn(file, argv, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
    let killer: TreeKiller | undefined;
    if (child.pid !== undefined && sandbox) killer = new SandboxKiller(child);
    else if (child.pid !== undefined && namespace) killer = new NamespaceKiller(namespace, child.pid);
    else if (child.pid !== undefined) {
      const tracker = new ProcessTracker(child.pid, `${MARKER_VARIABLE}=${marker}`);
      void tracker.start();
      killer = tracker;
    }
    // When the kill is done, the pipes close as their last holders die; never wait on them forever.
    const killThenClose = async () => {
      await killer?.kill(KILL_GRACE_MS);
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, CLOSE_GRACE_MS).unref();
    };
    let stopReason: string | undefined;
    const stop = (reason: string) => {
      if (stopReason) return;
      stopReason = reason;
      void killThenClose();
    };
    const timer = setTimeout(() => stop(`Timed out after ${timeoutMs / 1000} s; the command and its child processes were killed.`), timeoutMs);
    const onAbort = () => stop('Stopped by the user; the command and its child processes were killed.');
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      killer?.dispose();
      namespace?.end();
      void sandbox?.dispose();
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.append(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.append(chunk));
    let notStarted = false;
    child.on('error', (error: NodeJS.ErrnoException) => {
      // Node may still emit 'close' for a process that never started; the error is the answer.
      notStarted = true;
      finish();
      void whyNotStarted(error, cwd).then((why) => reject(new Error(`Could not start bash: ${why}`)));
    });
    // Background jobs can hold the output pipes open after bash exits; stop them rather than hang.
    child.on('exit', () => {
      setTimeout(async () => {
        if (stopReason || (child.stdout.readableEnded && child.stderr.readableEnded)) return;
        if (await killer?.hasLeftovers()) output.append('\n[Background processes that kept the output open were stopped.]');
        await killThenClose();
      }, DRAIN_MS).unref();
    });
    child.on('close', (code, killedBy) => {
      if (notStarted) return;
      finish();
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const status = stopReason ?? (code !== null ? `Exit code: ${code}` : `Killed by ${killedBy}`);
      const text = output.toString().replace(/\s+$/, '');
      const contained = options.containment ? ` · ${options.containment}` : '';
      resolve(`${status} (${seconds} s)${contained}\n${text ? `\n${text}` : '\n(no output)'}`);
    });
  });
}

/** Node reports a missing working folder as the program missing ("spawn bwrap ENOENT"); say which it was. */
async function whyNotStarted(error: NodeJS.ErrnoException, cwd: string): Promise<string> {
  if (error.code !== 'ENOENT') return error.message;
  const folder = await fs.stat(cwd).then((stat) => stat.isDirectory(), () => false);
  return folder ? error.message : `the folder ${cwd} does not exist (was the workspace folder moved or deleted?)`;
}
