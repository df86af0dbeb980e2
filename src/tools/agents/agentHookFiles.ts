import type { JSONPath } from 'jsonc-parser';
import { HOME_CREDENTIAL_PATHS } from '../sensitiveFiles';
import { HOOK_AGENTS, type HookAgent } from '../nativeCalls';
import { AGENT_CONFIG_PATHS } from '../protectedPaths';

/*
 * What `toolbelt agents install` writes into a workspace for each agent, and what `uninstall`
 * takes out again: the hook entry that runs `toolbelt hook AGENT` before each of the agent's own
 * tool calls, and where the agent has them, its own sandbox and permission settings compiled from
 * the workspace's policy (.vscode/settings.json). Pure text in, text out, so the CLI and the
 * extension write the same files. Every file is checked in: it names `toolbelt` from PATH and
 * paths relative to the workspace or the home folder (`~/`), never a path of this machine.
 */

/** The agents `toolbelt hook` answers (nativeCalls.ts names them once). */
export type AgentId = HookAgent;
export const AGENT_IDS: readonly AgentId[] = HOOK_AGENTS;

export const AGENT_LABELS: Readonly<Record<AgentId, string>> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'gemini-cli': 'Gemini CLI',
  copilot: 'GitHub Copilot (VS Code agent and Copilot CLI)',
  cursor: 'Cursor',
};

/** Where each agent keeps its project configuration, and the programs that run it (to say whether it is here). */
export const AGENT_PRESENCE: Readonly<Record<AgentId, { folder: string; binaries: readonly string[] }>> = {
  'claude-code': { folder: '.claude', binaries: ['claude'] },
  codex: { folder: '.codex', binaries: ['codex'] },
  'gemini-cli': { folder: '.gemini', binaries: ['gemini'] },
  copilot: { folder: '.github/hooks', binaries: ['copilot', 'code'] },
  cursor: { folder: '.cursor', binaries: ['cursor', 'cursor-agent'] },
};

/** Writes into these ask (the hook) or are refused (Claude Code's sandbox): the settings that decide what runs (protectedPaths.ts's list). */
export const PROTECTED_AGENT_PATHS: readonly string[] = Object.freeze(['.vscode', '.git', ...AGENT_CONFIG_PATHS.map((entry) => entry.replace(/\/$/, ''))]);

/** The policy as the agents' files can carry it: the workspace's own settings only (they are checked in). */
export interface AgentPolicy {
  /** toolbelt.runBash.deniedCommands, as written (prefixes and /regex/). */
  deniedCommands: string[];
  /** The built-in sensitive files and the workspace's toolbelt.tools.sensitiveFiles. */
  sensitiveGlobs: string[];
  /** toolbelt.sandbox.mode at the workspace level: "required" makes an agent's sandbox a hard gate where it can be. */
  sandboxMode: 'auto' | 'required' | 'off';
  /** toolbelt.sandbox.network at the workspace level (default "off"). */
  network: 'off' | 'allowlist' | 'on';
  /** toolbelt.sandbox.allowedDomains at the workspace level. */
  allowedDomains: string[];
  /** run_bash examples of toolbelt.policy.tests: Codex checks its rules against them. */
  commandExamples: { command: string; expect: 'allow' | 'ask' | 'deny' }[];
  /** What in the settings could not be used. */
  problems: string[];
}

/** The words of a deny entry that is a plain prefix (`git push`), undefined for a /regex/ or anything with shell syntax. */
export function prefixWords(entry: string): string[] | undefined {
  if (entry.startsWith('/') && entry.endsWith('/') && entry.length >= 2) return undefined;
  const words = entry.trim().split(/\s+/);
  return words.every((word) => /^[A-Za-z0-9_.,:=+@%/-]+$/.test(word)) ? words : undefined;
}

// ---------------------------------------------------------------------------------------------
// The hook line

const MISSING = "Blocked: toolbelt is not on PATH, and this workspace checks every tool call with it. Put it there (in VS Code: Toolbelt: Install 'toolbelt' Command in PATH) or take the hook out (toolbelt agents uninstall).";

/** What the hook prints on stdout when `toolbelt` is missing: the agent's own way of saying deny. */
const MISSING_STDOUT: Readonly<Partial<Record<AgentId, unknown>>> = {
  copilot: { permissionDecision: 'deny', permissionDecisionReason: MISSING },
  cursor: { permission: 'deny', agent_message: MISSING },
};

/**
 * The shell line each agent runs before a tool call. A command that is not found exits 127, which
 * Claude Code and Codex take as "let it run": so the line looks for `toolbelt` first and blocks
 * (exit 2, the reason on stderr, and the agent's deny on stdout where it reads one) when it is missing.
 */
export function hookCommand(agent: AgentId): string {
  const stdout = MISSING_STDOUT[agent];
  const say = `${stdout ? `printf '%s\\n' '${JSON.stringify(stdout).replace(/'/g, `'\\''`)}'; ` : ''}printf '%s\\n' '${MISSING.replace(/'/g, `'\\''`)}' >&2`;
  return `command -v toolbelt >/dev/null 2>&1 || { ${say}; exit 2; }; exec toolbelt hook ${agent}`;
}

/** Whether a hook entry (a group or a handler) is one Toolbelt wrote for `agent`. */
export function isToolbeltEntry(agent: AgentId, value: unknown): boolean {
  return JSON.stringify(value ?? null).includes(`toolbelt hook ${agent}`);
}

// ---------------------------------------------------------------------------------------------
// The files

/** One JSON file Toolbelt edits: hook entries it owns, values it sets, list entries it adds. */
export interface JsonFileSpec {
  kind: 'json';
  /** Relative to the workspace. */
  file: string;
  /** Arrays that get Toolbelt's entry (one per event). */
  hooks: { path: JSONPath; entry: unknown }[];
  /** Keys Toolbelt sets to a value. */
  values: { path: JSONPath; value: unknown }[];
  /**
   * String lists Toolbelt adds entries to (the person's entries stay). `empty`: an empty list says
   * something (no domain at all) and is written; otherwise an empty list is not written.
   */
  lists: { path: JSONPath; items: string[]; empty?: boolean }[];
  /** Values Toolbelt writes under another policy: taken out (while they hold that value and the file before install had none there). */
  retired: { path: JSONPath; value: unknown }[];
  /** Keys set only when absent (a format's version), removed again only with a file that is otherwise empty. */
  defaults: { path: JSONPath; value: unknown }[];
}

/** A file Toolbelt owns whole; a file of that name without the marker line is the person's and is left alone. */
export interface WholeFileSpec {
  kind: 'whole';
  file: string;
  /** The text; undefined when the policy gives nothing to write (the file is then removed if it is Toolbelt's). */
  text: string | undefined;
}

export type AgentFileSpec = JsonFileSpec | WholeFileSpec;

/** The first line of every file Toolbelt owns whole. */
export const OWNED_MARKER = '# Written by `toolbelt agents install`';

export function isOwnedText(text: string): boolean {
  return text.startsWith(OWNED_MARKER);
}

/** The files `install` writes for `agent` from `policy`. */
export function agentFileSpecs(agent: AgentId, policy: AgentPolicy): AgentFileSpec[] {
  const command = hookCommand(agent);
  switch (agent) {
    case 'claude-code':
      return [claudeSettings(command, policy)];
    case 'codex':
      return [
        json('.codex/hooks.json', { hooks: [{ path: ['hooks', 'PreToolUse'], entry: { matcher: '*', hooks: [{ type: 'command', command, timeout: 30, statusMessage: 'Checking with toolbelt' }] } }] }),
        { kind: 'whole', file: '.codex/rules/toolbelt.rules', text: codexRules(policy) },
        { kind: 'whole', file: '.codex/config.toml', text: codexConfig(policy) },
      ];
    case 'gemini-cli':
      return [json('.gemini/settings.json', { hooks: [{ path: ['hooks', 'BeforeTool'], entry: { matcher: '*', hooks: [{ name: 'toolbelt', type: 'command', command, timeout: 30000, description: 'Checks each tool call against the workspace policy (.vscode/settings.json)' }] } }] })];
    case 'copilot':
      return [
        json('.github/hooks/toolbelt.json', {
          defaults: [{ path: ['version'], value: 1 }],
          hooks: [{ path: ['hooks', 'preToolUse'], entry: { type: 'command', bash: command, timeoutSec: 30 } }],
        }),
      ];
    case 'cursor': {
      const entry = { command, timeout: 30 };
      return [
        json('.cursor/hooks.json', {
          defaults: [{ path: ['version'], value: 1 }],
          hooks: [
            { path: ['hooks', 'beforeShellExecution'], entry },
            { path: ['hooks', 'beforeReadFile'], entry },
            { path: ['hooks', 'beforeMCPExecution'], entry },
            { path: ['hooks', 'preToolUse'], entry: { ...entry, matcher: 'Write|Edit|StrReplace|MultiEdit|Delete' } },
          ],
        }),
      ];
    }
  }
}

function json(file: string, parts: Partial<Omit<JsonFileSpec, 'kind' | 'file'>>): JsonFileSpec {
  return { kind: 'json', file, hooks: parts.hooks ?? [], values: parts.values ?? [], retired: parts.retired ?? [], lists: parts.lists ?? [], defaults: parts.defaults ?? [] };
}

/** A sensitive-file glob as a path Claude Code's sandbox reads (relative to the project; at any depth). */
function claudePath(glob: string): string {
  return glob.startsWith('**/') || glob.startsWith('/') ? glob : `**/${glob}`;
}

const FAIL_IF_UNAVAILABLE = { path: ['sandbox', 'failIfUnavailable'], value: true };

function claudeSettings(command: string, policy: AgentPolicy): JsonFileSpec {
  const denyRead = [...HOME_CREDENTIAL_PATHS.map((p) => `~/${p}`), ...policy.sensitiveGlobs.map(claudePath)];
  const denyWrite = PROTECTED_AGENT_PATHS.map((p) => `./${p}`);
  const deny = policy.deniedCommands.flatMap((entry) => {
    const words = prefixWords(entry);
    return words ? [`Bash(${words.join(' ')}:*)`] : [];
  });
  return json('.claude/settings.json', {
    hooks: [{ path: ['hooks', 'PreToolUse'], entry: { matcher: '*', hooks: [{ type: 'command', command, timeout: 30 }] } }],
    values: [
      { path: ['sandbox', 'enabled'], value: true },
      // Without it the model may set dangerouslyDisableSandbox on a command and run it outside.
      { path: ['sandbox', 'allowUnsandboxedCommands'], value: false },
      // "required": where the sandbox cannot start (no bubblewrap), commands fail instead of running outside it.
      ...(policy.sandboxMode === 'required' ? [FAIL_IF_UNAVAILABLE] : []),
    ],
    retired: policy.sandboxMode === 'required' ? [] : [FAIL_IF_UNAVAILABLE],
    lists: [
      { path: ['sandbox', 'filesystem', 'denyRead'], items: [...new Set(denyRead)] },
      { path: ['sandbox', 'filesystem', 'denyWrite'], items: denyWrite },
      ...(policy.network === 'on' ? [] : [{ path: ['sandbox', 'network', 'allowedDomains'], items: policy.network === 'allowlist' ? policy.allowedDomains : [], empty: true }]),
      { path: ['permissions', 'deny'], items: deny },
    ],
  });
}

/** A Starlark string: JSON's escapes are Starlark's for these characters. */
const star = (text: string) => JSON.stringify(text);

/** Splits a simple command like shlex does; undefined when it has shell syntax the rules could not see the same way. */
export function simpleWords(command: string): string[] | undefined {
  if (/[;&|<>()$`\\\n*?[\]{}~]/.test(command)) return undefined;
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let match = pattern.exec(command); match; match = pattern.exec(command)) words.push(match[1] ?? match[2] ?? match[3]);
  return words.length > 0 ? words : undefined;
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= words.length && prefix.every((word, i) => words[i] === word);
}

/** Codex's rules (execpolicy, Starlark): one forbidden prefix_rule per denied prefix, the team's examples as its tests. */
export function codexRules(policy: AgentPolicy): string | undefined {
  const rules = policy.deniedCommands.flatMap((entry) => {
    const words = prefixWords(entry);
    if (!words) return [];
    const examples = policy.commandExamples.flatMap((example) => {
      const exampleWords = simpleWords(example.command);
      // The examples that name the same program, or one whose name starts like it (rmdir for rm): the near misses a prefix rule must tell apart.
      return exampleWords && exampleWords[0].startsWith(words[0]) ? [{ words: exampleWords, expect: example.expect }] : [];
    });
    const match = examples.filter((e) => e.expect === 'deny' && startsWith(e.words, words)).map((e) => e.words);
    const notMatch = examples.filter((e) => e.expect !== 'deny' && !startsWith(e.words, words)).map((e) => e.words);
    const list = (name: string, items: string[][]) => (items.length > 0 ? [`    ${name} = [${items.map((w) => `[${w.map(star).join(', ')}]`).join(', ')}],`] : []);
    return [
      [
        'prefix_rule(',
        `    pattern = [${words.map(star).join(', ')}],`,
        '    decision = "forbidden",',
        `    justification = ${star(`Denied by toolbelt.runBash.deniedCommands "${entry}" in .vscode/settings.json.`)},`,
        ...list('match', match),
        ...list('not_match', notMatch),
        ')',
      ].join('\n'),
    ];
  });
  if (rules.length === 0) return undefined;
  return `${OWNED_MARKER} from .vscode/settings.json (toolbelt.runBash.deniedCommands); \`toolbelt agents uninstall codex\` removes it.\n\n${rules.join('\n\n')}\n`;
}

/** Codex's project configuration: its sandbox for the workspace, network as the policy says (Codex has no per-domain list). */
export function codexConfig(policy: AgentPolicy): string {
  return [
    `${OWNED_MARKER} from .vscode/settings.json (toolbelt.sandbox.network); \`toolbelt agents uninstall codex\` removes it.`,
    'sandbox_mode = "workspace-write"',
    '',
    '[sandbox_workspace_write]',
    `network_access = ${policy.network === 'on' ? 'true' : 'false'}`,
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Merging into a JSON file and taking out again
