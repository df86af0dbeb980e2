import * as vscode from 'vscode';
import type { ToolCaller } from '../../tools/caller';
import { verdictOf, type ConsentPlan, type Verdict } from '../../tools/consent';
import type { ToolResult } from '../../tools/interface';
import { BUILTIN_MANIFEST } from '../../tools/manifest';
import type { ToolContext } from '../../tools/types';
import type { CallGroups } from '../callGroups';
import type { ChatTargets } from '../shellHandover';
import { confirmWithDialog } from '../toolContext';
import { confirmationCard } from './confirmationCard';
import type { ExpectedInvocations } from './expectedInvocations';
import { lmToolName } from './lmToolEntries';
import { availabilityIn, type ToolsView } from './offeredToolKeys';
import { afterCard, PendingPlans } from './preApproval';
import { enableHint } from './toolAvailability';

/** A test seam: what `prepareInvocation` answers for a call, without showing anything. */
export const PREPARE_COMMAND = 'toolbelt.lmTools.prepareInvocation';

/** The chat id the log and the undo records give calls from VS Code's chat (Copilot's agent, other extensions). */
export const VSCODE_CHAT = 'vscode-chat';

/** What the VS Code tools need of the workspace. */
export interface LmToolDeps {
  tools: ToolsView;
  context: ToolContext;
  log: vscode.LogOutputChannel;
  /** Where each `toolbelt_<tool>` implementation goes (the shell registered the tools at activation). */
  targets: Pick<ChatTargets, 'lmTool'>;
  /** `@toolbelt`'s own calls, waiting for their tool to run. */
  expected: ExpectedInvocations;
  /** Undo records of calls from VS Code's chat. */
  groups: CallGroups;
}

/**
 * Registers every builtin as `toolbelt_<tool>` with `vscode.lm.registerTool`. A call runs through
 * the workspace's registry (path guard, caps, budget, Stop, tool-call log) on behalf of its own
 * caller; a tool the workspace does not offer does not run and says how to switch it on.
 */
export function registerLanguageModelTools(deps: LmToolDeps): vscode.Disposable {
  const pending = new PendingPlans();
  const disposables = BUILTIN_MANIFEST.map((definition) =>
    deps.targets.lmTool(lmToolName(definition.name), new WorkspaceLmTool(definition.name, deps, pending)),
  );
  disposables.push(
    vscode.commands.registerCommand(PREPARE_COMMAND, (tool: string, input: Record<string, unknown>) => prepare(tool, input, deps)),
  );
  return vscode.Disposable.from(...disposables);
}

class WorkspaceLmTool implements vscode.LanguageModelTool<Record<string, unknown>> {
  constructor(
    private readonly name: string,
    private readonly deps: LmToolDeps,
    private readonly pending: PendingPlans,
  ) {}

  async prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<Record<string, unknown>>): Promise<vscode.PreparedToolInvocation> {
    const input = asArgs(options.input);
    const { prepared, plan } = await prepare(this.name, input, this.deps);
    if (plan && prepared.confirmationMessages) this.pending.remember(this.name, input, plan);
    return prepared;
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<Record<string, unknown>>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const input = asArgs(options.input);
    const card = this.pending.take(this.name, input);
    const expected = this.deps.expected.claim(this.name, input);
    const availability = availabilityIn(this.deps.tools, this.name);
    const registry = this.deps.tools.manager.registry;
    const group = expected ? undefined : this.deps.groups.begin(VSCODE_CHAT);
    const caller = afterCard(expected?.caller ?? vscodeChatCaller(group!), card);
    if (availability !== 'offered') {
      // A registered but disabled tool goes through the registry, which refuses it and logs the refusal.
      const refused = registry.hasTool(this.name) ? await registry.run(this.name, input, { caller }) : undefined;
      const text = enableHint(this.name, availability);
      expected?.settle({ text, status: 'refused', durationMs: refused?.durationMs ?? 0, approvedBy: 'refused' });
      return textResult(text);
    }
    const controller = new AbortController();
    const cancelled = token.onCancellationRequested(() => controller.abort());
    try {
      if (token.isCancellationRequested) controller.abort();
      const result = await registry.run(this.name, input, { signal: controller.signal, caller });
      expected?.settle(result);
      const unrecorded = group?.unrecorded();
      return textResult(unrecorded ? `${forModel(this.name, result)}\n\n${unrecorded}` : forModel(this.name, result));
    } finally {
      cancelled.dispose();
      await group?.end();
    }
  }
}

/** Copilot's agent or another extension: its questions in a dialog, its changes in an undo group of their own. */
function vscodeChatCaller(group: { beforeChange: ToolCaller['beforeChange'] }): ToolCaller {
  return {
    kind: VSCODE_CHAT,
    chatId: VSCODE_CHAT,
    label: "VS Code's chat",
    sessionContext: "_(Called from VS Code's chat, whose conversation Toolbelt does not see.)_",
    confirm: confirmWithDialog,
    beforeChange: group.beforeChange,
  };
}

/** What VS Code is told before a call, and what the policy decides for it (the test seam returns both). */
interface Prepared {
  prepared: vscode.PreparedToolInvocation;
  plan?: ConsentPlan;
  verdict: Verdict;
}

async function prepare(tool: string, input: Record<string, unknown>, deps: LmToolDeps): Promise<Prepared> {
  const availability = availabilityIn(deps.tools, tool);
  if (availability !== 'offered') return { prepared: { invocationMessage: `Toolbelt: ${tool} is not active in this workspace` }, verdict: 'deny' };
  const prepared: vscode.PreparedToolInvocation = { invocationMessage: `Toolbelt: running ${tool}` };
  let plan: ConsentPlan;
  try {
    plan = await deps.tools.manager.registry.consent(tool, input);
  } catch {
    // The call cannot run as asked (a bad path, bad arguments): the tool refuses it with the reason; nothing to confirm.
    return { prepared, verdict: 'deny' };
  }
  const card = confirmationCard(plan, input, deps.context.workspaceRoot);
  if (card) prepared.confirmationMessages = { title: card.title, message: new vscode.MarkdownString(card.message) };
  return { prepared, plan, verdict: verdictOf(plan) };
}

/** The last line of a result that did not succeed: a next step for the model. */
const STATUS_NOTES: Record<Exclude<ToolResult['status'], 'ok'>, (tool: string) => string> = {
  refused: (tool) => `(${tool} was refused and changed nothing. Do not repeat the same call; tell the user, or try another way.)`,
  cancelled: (tool) => `(${tool} was stopped by the user.)`,
  error: (tool) => `(${tool} failed. Fix the arguments if the error says how, otherwise tell the user.)`,
};

/** The registry's text, with a plain next step for the model when the call did not succeed. */
function forModel(tool: string, result: ToolResult): string {
  return result.status === 'ok' ? result.text : `${result.text}\n\n${STATUS_NOTES[result.status](tool)}`;
}

function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

function asArgs(input: unknown): Record<string, unknown> {
  return input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}
