import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { builtin } from './builtinTool';
import { describeRefusal, judgeCommand, partsToApprove, type CommandJudgement, type CommandPart } from './commandPolicy';
import { unasked, type ConsentPlan, type PolicyPart, type PolicyRule } from './consent';
import { LIMITS } from './manifest';
import { processIsolation, type IsolationKind } from './processIsolation';
import { PidNamespace } from './pidNamespace';
import { NamespaceKiller, ProcessTracker, type TreeKiller } from './processTree';
import type { ToolContext } from './types';
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
}

/**
 * Without command rules every command asks (`destructive`); with them a denied part refuses the
 * call (with or without a person), all parts allowed runs it unasked, and otherwise the parts no
 * rule allows are asked about. Nobody to ask: it runs — enabling the tool was the consent, and
 * only a deny rule says otherwise.
 */
async function bashConsent(args: Record<string, unknown>, ctx: ToolContext, signal?: AbortSignal): Promise<ConsentPlan<BashPlan>> {
  const command = args.command as string;
  const cwd = (await resolveWorkspacePath(ctx, '.', { signal })).absolute;
  const plan = unasked('run_bash', { command, cwd });
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

// Where each part's verdict comes from, for `toolbelt policy explain`.
const NO_POLICY = Object.freeze({ allowed: [], denied: [] });
const NO_RULES: PolicyRule = { builtin: 'run_bash asks before every command while no toolbelt.runBash rules are set' };
const UNCOVERED: PolicyRule = { builtin: 'a part no allow rule covers (or one that writes files) asks' };
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

export const runBash = builtin(bashConsent, async (args, _ctx, { signal, plan }) => {
  const timeoutSeconds = (args.timeoutSeconds as number | undefined) ?? LIMITS.bashDefaultTimeoutSeconds;
  return runCommand(plan.prepared.command, plan.prepared.cwd, timeoutSeconds * 1000, signal);
});

export interface RunCommandOptions {
  /** Use this mechanism instead of the detected one (tests force 'process-group'). */
  isolation?: IsolationKind;
}

/**
 * Runs `bash -c command` with stdin closed, contained as tightly as the machine allows (see
 * processIsolation); on timeout or abort every process it started is killed. Rejects when bash
 * cannot be started at all.
 */
export async function runCommand(command: string, cwd: string, timeoutMs: number, signal?: AbortSignal, options: RunCommandOptions = {}): Promise<string> {
  const isolation = await processIsolation({ force: options.isolation });
  signal?.throwIfAborted();
  // A namespace that fails to open now (it worked at detection) leaves this call to the fallback.
  const namespace = isolation.unshareArgs ? await PidNamespace.open(isolation.unshareArgs).catch(() => undefined) : undefined;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const output = new HeadTailBuffer(LIMITS.bashOutputMaxChars);
    const marker = randomUUID();
    const [file, argv] = namespace ? ['nsenter', [...namespace.enterArgs(cwd), '--', 'bash', '-c', command]] : ['bash', ['-c', command]];
    const child = spawn(file, argv, {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TERM: 'dumb', NO_COLOR: '1', PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', [MARKER_VARIABLE]: marker },
    });
    let killer: TreeKiller | undefined;
    if (child.pid !== undefined && namespace) killer = new NamespaceKiller(namespace, child.pid);
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
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.append(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.append(chunk));
    child.on('error', (error) => {
      finish();
      reject(new Error(`Could not start bash: ${error.message}`));
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
      finish();
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const status = stopReason ?? (code !== null ? `Exit code: ${code}` : `Killed by ${killedBy}`);
      const text = output.toString().replace(/\s+$/, '');
      resolve(`${status} (${seconds} s)\n${text ? `\n${text}` : '\n(no output)'}`);
    });
  });
}
