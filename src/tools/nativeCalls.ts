import { realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeRefusal, judgeCommand, partsToApprove, type CommandPart } from './command';
import type { PolicyPart, PolicyRule, Verdict } from './consent';
import { isInside } from './pathChecks';
import { PATH_GUARD_RULE } from './policyDecision';
import { AGENT_CONFIG_RULE, agentConfigArea, protectedArea, PROTECTED_RULE } from './protectedPaths';

export { AGENT_CONFIG_PATHS, agentConfigArea } from './protectedPaths';
import { SENSITIVE_SETTING, sensitiveGlobFor } from './sensitiveFiles';
import type { CommandPolicy, SandboxSetting } from './types';

/**
 * Another agent's own tool call (Claude Code's Bash, Codex's apply_patch, Gemini CLI's read_file…),
 * as `toolbelt hook` reads it from the agent's hook event, judged against the workspace's policy.
 * No vscode here: the extension can judge the same calls.
 */
export type HookAgent = 'claude-code' | 'codex' | 'gemini-cli' | 'copilot' | 'cursor';
export const HOOK_AGENTS: readonly HookAgent[] = ['claude-code', 'codex', 'gemini-cli', 'copilot', 'cursor'];
export const AGENT_LABELS: Readonly<Record<HookAgent, string>> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'gemini-cli': 'Gemini CLI',
  copilot: 'Copilot',
  cursor: 'Cursor',
};

export type NativeKind = 'shell' | 'read' | 'write' | 'fetch' | 'mcp' | 'other';

export interface NativeCall {
  agent: HookAgent;
  /** The agent's own name for the tool: `Bash`, `apply_patch`, `read_file`, `mcp__github__create_issue`. */
  tool: string;
  kind: NativeKind;
  /** `shell`: the command line. */
  command?: string;
  /** `read` / `write`: the paths as the agent gave them (absolute, or relative to `cwd`). */
  paths?: string[];
  /** `fetch`: the URLs (none for a web search). */
  urls?: string[];
  /** `mcp`: the server and its tool. */
  mcp?: { server: string; tool: string };
  /** `other`: a tool that reaches no file, command or network of its own (a to-do list, a question to the person). */
  inert?: boolean;
  /** The folder the agent runs in (relative paths resolve against it). */
  cwd?: string;
  sessionId?: string;
  /** Whether the agent can put an `ask` to a person here; when not, ask is answered as deny. */
  canAsk: boolean;
  /** The arguments as the agent sent them (for the log, bounded there). */
  args: Record<string, unknown>;
}

/** The workspace's rules a native call is judged by (the same values the CLI's ToolContext holds). */
export interface NativePolicy {
  /** The workspace folder, its real path. */
  root: string;
  commandPolicy: CommandPolicy | undefined;
  sensitiveGlobs: readonly string[];
  sandbox: SandboxSetting;
  /** MCP tools (`<server>/<tool>`, `<server>/*`) the person lets run without asking. */
  runWithoutAsking: ReadonlySet<string>;
}

export interface NativeDecision {
  verdict: Verdict;
  reason: string;
  rule?: PolicyRule;
  parts?: PolicyPart[];
  /** Why an ask stays an ask only where a person answers it: `protected` (a write to a protected path), … */
  asks?: 'command' | 'sensitive' | 'protected' | 'external' | 'network' | 'unknown';
}

export const NO_COMMAND_RULES: PolicyRule = { builtin: 'a command asks while no toolbelt.runBash rules are set' };
export const UNCOVERED_PART: PolicyRule = { builtin: 'a part no allow rule covers (or one that writes files) asks' };
export const EXTERNAL_TOOL_RULE: PolicyRule = { builtin: "an MCP server's tool asks before each call unless you run it without asking (--run-without-asking <server>/<tool>)" };
export const UNKNOWN_TOOL_RULE: PolicyRule = { builtin: 'a tool Toolbelt does not know asks' };
export const INERT_TOOL_RULE: PolicyRule = { builtin: 'a tool that reaches no file, command or network runs' };
export const INSIDE_RULE: PolicyRule = { builtin: 'reads and writes inside the workspace run' };
export const OWN_SERVER_RULE: PolicyRule = { builtin: "Toolbelt's own MCP tools judge each call themselves" };

/** What the policy decides for one native call. Never throws for a path; the caller catches the rest. */
export function decideNativeCall(call: NativeCall, policy: NativePolicy): NativeDecision {
  switch (call.kind) {
    case 'shell': {
      const decision = decideCommand(call.command ?? '', policy);
      // The agent's command runs outside Toolbelt's sandbox, which hides sensitive files from run_bash: naming one asks.
      const named = decision.verdict === 'deny' ? undefined : sensitiveWord(call.command ?? '', call.cwd, policy);
      return named ? { ...decision, verdict: 'ask', reason: `Run \`${call.command}\`: it names "${named.word}", a sensitive file (matches ${JSON.stringify(named.glob)})`, rule: { setting: SENSITIVE_SETTING, entry: named.glob }, asks: 'sensitive' } : decision;
    }
    case 'read':
    case 'write':
      return decidePaths(call, policy);
    case 'fetch':
      return decideFetch(call.urls ?? [], policy.sandbox);
    case 'mcp':
      return decideMcp(call.mcp ?? { server: '', tool: call.tool }, policy);
    default:
      return call.inert
        ? { verdict: 'allow', reason: `${call.tool} reaches no file, command or network`, rule: INERT_TOOL_RULE }
        : { verdict: 'ask', reason: `"${call.tool}" is a tool Toolbelt does not know`, rule: UNKNOWN_TOOL_RULE, asks: 'unknown' };
  }
}

/** As run_bash's command rules judge it (shell.ts), without Toolbelt's OS sandbox: the agent runs the command itself. */
function decideCommand(command: string, policy: NativePolicy): NativeDecision {
  if (!command.trim()) return { verdict: 'deny', reason: 'the call names no command', rule: { builtin: 'a call whose arguments cannot work is not run' } };
  const rules = policy.commandPolicy;
  if (!rules) {
    return { verdict: 'ask', reason: `Run \`${command}\`: no command rules are set (toolbelt.runBash.allowedCommands / deniedCommands), so every command asks`, rule: NO_COMMAND_RULES, asks: 'command' };
  }
  const judgement = judgeCommand(command, rules);
  const parts = judgement.parts.map(policyPart);
  if (judgement.verdict === 'deny') {
    return { verdict: 'deny', reason: describeRefusal(judgement), rule: parts.find((part) => part.verdict === 'deny')?.rule ?? UNCOVERED_PART, parts };
  }
  if (judgement.verdict === 'allow') {
    return { verdict: 'allow', reason: 'allowed by toolbelt.runBash.allowedCommands', rule: parts.find((part) => part.rule && 'setting' in part.rule)?.rule ?? { setting: 'toolbelt.runBash.allowedCommands' }, parts };
  }
  const unallowed = partsToApprove(judgement);
  const uncovered = unallowed.length > 0 ? ` — no rule allows ${unallowed.map((p) => `\`${p.text}\``).join(', ')}` : '';
  const problem = judgement.problem ? ` — ${judgement.problem}` : '';
  const rule = judgement.problem !== undefined && judgement.parts.every((part) => part.verdict !== 'ask') ? { builtin: 'a command that cannot be fully analysed asks' } : UNCOVERED_PART;
  return { verdict: 'ask', reason: `Run \`${command}\`${problem}${uncovered}`, rule, parts, asks: 'command' };
}

function policyPart(part: CommandPart): PolicyPart {
  const rule: PolicyRule =
    part.verdict === 'ask'
      ? UNCOVERED_PART
      : part.rule === undefined
        ? { builtin: part.verdict === 'deny' ? 'with toolbelt.runBash.deniedCommands set, code the rules cannot read is refused' : 'a part that changes nothing runs' }
        : { setting: part.verdict === 'deny' ? 'toolbelt.runBash.deniedCommands' : 'toolbelt.runBash.allowedCommands', entry: part.rule };
  return { text: part.text, verdict: part.verdict, reason: part.reason, rule };
}

/** Where one path lies: its real place (`..` and links resolved as far as the path exists) against the workspace's. */
export function placePath(root: string, base: string, given: string): { display: string; relative: string; lexical: string; inside: boolean } {
  const expanded = given === '~' ? os.homedir() : given.startsWith('~/') ? path.join(os.homedir(), given.slice(2)) : given;
  const absolute = path.resolve(base, expanded);
  const real = realExisting(absolute);
  const inside = isInside(root, real);
  return { display: given, relative: path.relative(root, real), lexical: path.relative(root, absolute), inside };
}

function decidePaths(call: NativeCall, policy: NativePolicy): NativeDecision {
  const paths = call.paths && call.paths.length > 0 ? call.paths : ['.'];
  const base = call.cwd ? path.resolve(policy.root, call.cwd) : policy.root;
  const placed = paths.map((given) => placePath(policy.root, base, given));
  const outside = placed.find((p) => !p.inside);
  const verb = call.kind === 'write' ? 'write' : 'read';
  if (outside) {
    return { verdict: 'deny', reason: `"${outside.display}" is outside the workspace ${policy.root} (after resolving ".." and links): ${call.agent}'s ${call.tool} may not ${verb} it`, rule: PATH_GUARD_RULE };
  }
  if (call.kind === 'write') {
    for (const p of placed) {
      for (const candidate of [p.relative, p.lexical]) {
        const area = protectedArea(candidate);
        if (area && area !== 'agent-config') return { verdict: 'ask', reason: `"${p.display}" is a protected path (.git/, .vscode/, *.code-workspace): changing it needs a person's say`, rule: PROTECTED_RULE, asks: 'protected' };
        const config = agentConfigArea(candidate);
        if (config) return { verdict: 'ask', reason: `"${p.display}" is an agent's own configuration (${config}): changing it needs a person's say`, rule: AGENT_CONFIG_RULE, asks: 'protected' };
      }
    }
    return { verdict: 'allow', reason: `writes inside the workspace (${placed.map((p) => p.display).join(', ')})`, rule: INSIDE_RULE };
  }
  for (const p of placed) {
    const glob = sensitiveGlobFor(policy.sensitiveGlobs, [p.relative, p.lexical].map(toPosix));
    if (glob) return { verdict: 'ask', reason: `"${p.display}" is a sensitive file (matches ${JSON.stringify(glob)}): reading it sends its content to the model`, rule: { setting: SENSITIVE_SETTING, entry: glob }, asks: 'sensitive' };
  }
  return { verdict: 'allow', reason: `reads inside the workspace (${placed.map((p) => p.display).join(', ')})`, rule: INSIDE_RULE };
}

function decideFetch(urls: readonly string[], sandbox: SandboxSetting): NativeDecision {
  const network = { setting: 'toolbelt.sandbox.network', entry: sandbox.network };
  if (sandbox.network === 'on') return { verdict: 'allow', reason: 'toolbelt.sandbox.network is "on"', rule: network };
  if (sandbox.network === 'off') return { verdict: 'deny', reason: `toolbelt.sandbox.network is "off": no network call${urls.length ? ` (${urls.join(', ')})` : ''}`, rule: network };
  if (urls.length === 0) return { verdict: 'ask', reason: 'a web search reaches hosts no allow-list names (toolbelt.sandbox.network is "allowlist")', rule: network, asks: 'network' };
  for (const url of urls) {
    const host = hostOf(url);
    const allowed = host !== undefined && (sandbox.allowedDomains ?? []).find((domain) => domainMatches(domain, host));
    if (!allowed) return { verdict: 'deny', reason: `${host ?? url} is not in toolbelt.sandbox.allowedDomains`, rule: { setting: 'toolbelt.sandbox.allowedDomains' } };
  }
  const hosts = urls.map(hostOf);
  const entry = (sandbox.allowedDomains ?? []).find((domain) => hosts.some((host) => host !== undefined && domainMatches(domain, host)));
  return { verdict: 'allow', reason: `${hosts.join(', ')} in toolbelt.sandbox.allowedDomains`, rule: { setting: 'toolbelt.sandbox.allowedDomains', ...(entry ? { entry } : {}) } };
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `https://${url}`).hostname.toLowerCase().replace(/\.$/, '') || undefined;
  } catch {
    return undefined;
  }
}

/** `example.com` is that host; `*.example.com` its subdomains (as the sandbox's proxy reads the list). */
function domainMatches(domain: string, host: string): boolean {
  const d = domain.trim().toLowerCase();
  return d.startsWith('*.') ? host.endsWith(d.slice(1)) : host === d;
}

function decideMcp(mcp: { server: string; tool: string }, policy: NativePolicy): NativeDecision {
  const name = `${mcp.server}/${mcp.tool}`;
  if (mcp.server.toLowerCase() === 'toolbelt') return { verdict: 'allow', reason: `${name} is Toolbelt's own tool: it applies this policy itself`, rule: OWN_SERVER_RULE };
  if (policy.runWithoutAsking.has(name) || policy.runWithoutAsking.has(`${mcp.server}/*`)) {
    return { verdict: 'allow', reason: `${name} runs without asking (your choice)`, rule: { choice: `--run-without-asking ${policy.runWithoutAsking.has(name) ? name : `${mcp.server}/*`}` } };
  }
  return { verdict: 'ask', reason: `${name} is an MCP server's tool Toolbelt does not govern`, rule: EXTERNAL_TOOL_RULE, asks: 'external' };
}

/** A word of the command line that names a sensitive file (`cat .env`, `<./.env`, `"$HOME/.ssh/id_rsa"` is not resolved). */
function sensitiveWord(command: string, cwd: string | undefined, policy: NativePolicy): { word: string; glob: string } | undefined {
  const base = cwd ? path.resolve(policy.root, cwd) : policy.root;
  for (const raw of command.split(/[\s'"`;|&<>()=,]+/).slice(0, 500)) {
    const word = raw.replace(/^[$@]?\{?/, '');
    if (!word || word.startsWith('-') || word.length > 1024) continue;
    const placed = placePath(policy.root, base, word);
    const candidates = placed.inside ? [placed.relative, placed.lexical] : [path.basename(word)];
    const glob = sensitiveGlobFor(policy.sensitiveGlobs, candidates.map(toPosix));
    if (glob) return { word, glob };
  }
  return undefined;
}

function toPosix(relative: string): string {
  return relative.split(path.sep).join('/');
}

/** The path with its longest existing beginning resolved (links included). */
function realExisting(target: string): string {
  const rest: string[] = [];
  for (let dir = target; ; dir = path.dirname(dir)) {
    try {
      return path.join(realpathSync(dir), ...rest);
    } catch {
      if (path.dirname(dir) === dir) return target;
      rest.unshift(path.basename(dir));
    }
  }
}
