import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { hookCommand } from '../../src/tools/agents/agentHookFiles';
import { builtCli } from './cliProcess';

/**
 * Puts Toolbelt in front of a real agent's own tools the way a person would: the agent's hook
 * configuration in the workspace runs `toolbelt hook <agent>`, and `toolbelt` is found on PATH (a
 * shim that runs this checkout's dist/cli.js). Portable: the hook line names no path of this machine.
 */

export type RealAgent = 'claude-code' | 'codex' | 'gemini-cli';

/** The hook line the agent runs (from the workspace, the event on stdin). */
export function hookLine(agent: RealAgent): string {
  return `toolbelt hook ${agent}`;
}

/**
 * The hook line guarded against a missing `toolbelt`, as `toolbelt agents install` writes it: a
 * command that is not found exits 127, which Claude Code and Codex take as "run the call", so the
 * line looks first and blocks (exit 2, the reason on stderr) when `toolbelt` is not on PATH.
 */
export function guardedHookLine(agent: RealAgent): string {
  return hookCommand(agent);
}

/** Writes the agent's project-level hook configuration into `workspace`, running `command` before each of its tool calls. */
export async function installHook(agent: RealAgent, workspace: string, command = hookLine(agent)): Promise<string> {
  const write = async (relative: string, value: unknown) => {
    const file = path.join(workspace, relative);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, JSON.stringify(value, null, 2) + '\n');
    return file;
  };
  switch (agent) {
    case 'claude-code':
      // Claude Code: PreToolUse in .claude/settings.json, matcher "*" = every tool; timeout in seconds.
      return write('.claude/settings.json', { hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command, timeout: 30 }] }] } });
    case 'codex':
      // Codex: hooks.json in the project's .codex folder (its config layer), Claude's shape; timeout in seconds.
      return write('.codex/hooks.json', { hooks: { PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command, timeout: 30 }] }] } });
    case 'gemini-cli':
      // Gemini CLI: BeforeTool in .gemini/settings.json; timeout in milliseconds.
      return write('.gemini/settings.json', { hooks: { BeforeTool: [{ matcher: '.*', hooks: [{ type: 'command', name: 'toolbelt', command, timeout: 30_000 }] }] } });
  }
}

/**
 * A stand-in hook that reads the event and gives one fixed answer (stdout, exit code): to see what
 * the agent itself does with an answer. Returns the command line to install.
 */
export async function fixedAnswerHook(folder: string, answer: { stdout?: unknown; stderr?: string; code?: number }): Promise<string> {
  await fs.mkdir(folder, { recursive: true });
  const file = path.join(folder, 'fixed-answer-hook.sh');
  const lines = ['#!/bin/sh', 'cat >/dev/null'];
  if (answer.stdout !== undefined) lines.push(`printf '%s' ${shellQuote(JSON.stringify(answer.stdout))}`);
  if (answer.stderr) lines.push(`printf '%s' ${shellQuote(answer.stderr)} >&2`);
  lines.push(`exit ${answer.code ?? 0}`);
  await fs.writeFile(file, lines.join('\n') + '\n', { mode: 0o755 });
  return shellQuote(file);
}

/** A folder holding a `toolbelt` command that runs this checkout's built CLI with this Node; put it first on PATH. */
export async function toolbeltShim(folder: string): Promise<string> {
  await fs.mkdir(folder, { recursive: true });
  const script = `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(builtCli())} "$@"\n`;
  await fs.writeFile(path.join(folder, 'toolbelt'), script, { mode: 0o755 });
  return folder;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
