import { randomUUID } from 'node:crypto';
import { AgentLoop, type AgentEvent } from '../agent/agentLoop';
import { createProvider, type ProviderConfig } from '../agent/runtime';
import { providerSettingsOf, readChatSettings, type ChatSettings } from '../providers/chatSettings';
import { endpointOf, keyRequired, keyVariable } from '../providers/endpoints';
import { ProviderError } from '../providers/errors';
import { SERVICE_NAMES, type ServiceName } from '../providers/providerNames';
import type { ToolCaller } from '../tools/caller';
import { ToolRefusedError } from '../tools/toolErrors';
import type { ConfirmationReason } from '../tools/types';
import { terminalJson, terminalLine, terminalText } from '../common/visibleText';
import { REASONS, unapprovedRefusal } from './askTexts';
import type { CliWorkspace } from './cliWorkspace';
import type { SettingsSnapshot } from './settingsFiles';
import { EXIT, UsageError } from './usage';

/** What the person gave `toolbelt run` beside the prompt. */
export interface RunOptions {
  prompt: string;
  json: boolean;
  /** Reasons whose asks the person approved in advance (`--approve`). */
  approve: ReadonlySet<string>;
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  env: NodeJS.ProcessEnv;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  signal?: AbortSignal;
}

/**
 * The model to talk to: the settings' (workspace over the person's), the flags over both. The key
 * is `--api-key` (the person's explicit choice) or the provider's environment variable, and that
 * only when the endpoint is the provider's own service (endpoints.ts): a workspace that names
 * another `toolbelt.baseUrl` never receives `OPENAI_API_KEY`.
 */
export function providerConfig(settings: SettingsSnapshot, options: Pick<RunOptions, 'provider' | 'model' | 'baseUrl' | 'apiKey' | 'env'>): ProviderConfig {
  const provider = options.provider ?? (settings.text('toolbelt.provider') || 'openai');
  if (provider === 'vscode') throw new UsageError('toolbelt.provider is "vscode" (a model VS Code offers), which only works inside VS Code; pass --provider openai, ollama or gemini.');
  if (!(SERVICE_NAMES as readonly string[]).includes(provider)) throw new UsageError(`Unknown provider "${provider}"; use ${SERVICE_NAMES.join(', ')}.`);
  const service = provider as ServiceName;
  const read = chatSettingsOf(settings);
  const baseUrl = options.baseUrl ?? (read.baseUrl || undefined);
  const endpoint = endpointOf(service, baseUrl);
  const variable = keyVariable(endpoint);
  const apiKey = options.apiKey ?? (variable ? options.env[variable]?.trim() || undefined : undefined);
  if (!apiKey && keyRequired(endpoint)) throw new UsageError(`No ${service} API key: set ${variable} or pass --api-key.`);
  const fromSettings = providerSettingsOf(read, service);
  return {
    ...fromSettings,
    model: options.model ?? fromSettings.model,
    ...(baseUrl ? { baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
  };
}

/** The chat settings of the snapshot (workspace over the person's), read as VS Code reads them. */
export function chatSettingsOf(settings: SettingsSnapshot): ChatSettings {
  return readChatSettings((key) => settings.get(`toolbelt.${key}`));
}

/** The approved reasons, checked: an unknown one is a usage error. */
export function approvedReasons(values: readonly string[]): Set<ConfirmationReason> {
  const reasons = new Set<ConfirmationReason>();
  for (const value of values) {
    if (!(REASONS as string[]).includes(value)) throw new UsageError(`--approve ${value}: not a reason a call asks for; use ${REASONS.join(', ')}.`);
    reasons.add(value as ConfirmationReason);
  }
  return reasons;
}

/**
 * `toolbelt run PROMPT`: one turn of the same Agent, headless. The answer goes to stdout, tool
 * calls and their statuses to stderr (or everything as JSON lines on stdout with --json). A call
 * that would ask runs only when --approve names its reason; a refused call, a failed provider or
 * a turn cut short gives a non-zero exit code, so a CI job fails rather than passing on nothing.
 */
export async function runPrompt(workspace: CliWorkspace, options: RunOptions): Promise<number> {
  if (!options.prompt.trim()) throw new UsageError('run needs a prompt, e.g. toolbelt run "Fix the failing test".');
  const config = providerConfig(workspace.settings.current, options);
  await workspace.ready();
  const chatId = `run:${randomUUID()}`;
  const group = workspace.groups.begin(chatId);
  const caller: ToolCaller = {
    kind: 'cli',
    label: 'toolbelt run',
    chatId,
    get sessionContext() {
      return agent.sessionContext;
    },
    confirm: async (request) => {
      if (options.approve.has(request.reason)) {
        // Approved in advance by a flag, not by a person looking at this call: the log says a rule decided.
        request.decidedBy = 'rule';
        return true;
      }
      throw new ToolRefusedError(unapprovedRefusal(request));
    },
    beforeChange: (targets) => group.beforeChange(targets),
  };
  const agent = new AgentLoop(createProvider(config), {
    toolRegistry: workspace.manager.registry,
    workspaceRoot: workspace.root,
    systemPrompt: workspace.context.systemPrompt,
    sessionContextFilePath: workspace.context.sessionContextFilePath,
    maxToolRounds: chatSettingsOf(workspace.settings.current).maxToolRounds,
    caller,
  });
  const report = new RunReport(options);
  try {
    for await (const event of agent.streamChat(options.prompt, { signal: options.signal })) report.event(event);
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    // The error event said it already.
  } finally {
    await group.end();
  }
  return report.finish();
}

/**
 * Writes a run's events as text (answer on stdout, calls on stderr) or as JSON lines, and works
 * out the exit code. What the model or a tool wrote reaches the terminal with its control, bidi
 * and zero-width characters shown as escapes: an answer cannot write the clipboard, hide a link,
 * move the cursor or clear the screen.
 */
class RunReport {
  private refused: string[] = [];
  private failure: string | undefined;
  private end: 'stop' | 'max_rounds' | 'aborted' | undefined;
  private endsWithNewline = true;
  /** A carriage return at the end of a chunk: a line end if the next chunk starts with a line feed. */
  private heldReturn = false;

  constructor(private readonly options: RunOptions) {}

  event(event: AgentEvent): void {
    if (event.type === 'tool_call_end' && event.status === 'refused') this.refused.push(event.name);
    if (event.type === 'error') this.failure = event.message;
    if (event.type === 'done') this.end = event.reason;
    if (this.options.json) return this.json(event);
    const { stdout, stderr } = this.options;
    switch (event.type) {
      case 'text':
        this.answer(event.text);
        return;
      case 'tool_call_start':
        stderr.write(`→ ${terminalLine(event.name)} ${terminalLine(event.arguments)}\n`);
        return;
      case 'tool_call_end': {
        const detail = event.status === 'ok' ? '' : `: ${terminalLine(event.result.split('\n')[0])}`;
        stderr.write(`${event.status === 'ok' ? '✓' : '✗'} ${terminalLine(event.name)} ${event.status} (${Math.round(event.durationMs)} ms)${detail}\n`);
        return;
      }
      case 'error':
        stderr.write(`toolbelt: error: ${terminalLine(event.message)}\n`);
        return;
      case 'done':
        this.answer('');
        if (!this.endsWithNewline) stdout.write('\n');
        return;
      default:
        return;
    }
  }

  finish(): number {
    const code = this.failure !== undefined ? EXIT.provider
      : this.end === 'aborted' ? EXIT.interrupted
        : this.refused.length > 0 ? EXIT.refused
          : this.end !== 'stop' ? EXIT.incomplete : EXIT.ok;
    if (!this.options.json) this.answer('');
    if (this.options.json) this.options.stdout.write(`${terminalJson({ type: 'exit', code, refused: this.refused })}\n`);
    else if (code === EXIT.refused) this.options.stderr.write(`toolbelt: ${this.refused.length} tool call${this.refused.length === 1 ? ' was' : 's were'} refused (${this.refused.map(terminalLine).join(', ')}); exit code ${code}.\n`);
    else if (code === EXIT.incomplete) this.options.stderr.write(`toolbelt: the turn stopped before an answer; exit code ${code}.\n`);
    return code;
  }

  /** A chunk of the answer; '' flushes a carriage return held back from the last one. */
  private answer(chunk: string): void {
    let text = this.heldReturn ? `\r${chunk}` : chunk;
    this.heldReturn = chunk !== '' && text.endsWith('\r');
    if (this.heldReturn) text = text.slice(0, -1);
    if (text === '') return;
    this.options.stdout.write(terminalText(text));
    this.endsWithNewline = text.endsWith('\n');
  }

  private json(event: AgentEvent): void {
    if (event.type === 'context' || event.type === 'tool_call_pending') return;
    const line = event.type === 'error' ? { type: 'error', message: event.message, kind: event.error.kind } : event;
    this.options.stdout.write(`${terminalJson(line)}\n`);
  }
}
