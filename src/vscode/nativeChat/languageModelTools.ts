import * as vscode from 'vscode';
import { BUILTIN_MANIFEST } from '../../tools/manifest';
import type { ToolResult } from '../../tools/interface';
import type { ToolContext } from '../../tools/types';
import { confirmWithDialog } from '../toolContext';
import { planConfirmation, type ConfirmationPlan } from './confirmationPlan';
import { lmToolName } from './lmToolEntries';
import { availabilityIn, type ToolsView } from './offeredToolKeys';
import { PendingPlans, runPreApproved } from './preApproval';
import { enableHint } from './toolAvailability';
import type { ChatTargets } from '../shellHandover';

/** A test seam: what `prepareInvocation` answers for a call, without showing anything. */
export const PREPARE_COMMAND = 'toolbelt.lmTools.prepareInvocation';

/** What the VS Code tools need of the workspace. */
export interface LmToolDeps {
  tools: ToolsView;
  context: ToolContext;
  log: vscode.LogOutputChannel;
  /** Where each `toolbelt_<tool>` implementation goes (the shell registered the tools at activation). */
  targets: Pick<ChatTargets, 'lmTool'>;
}

/**
 * Registers every builtin as `toolbelt_<tool>` with `vscode.lm.registerTool`. A call runs through
 * the workspace's registry (path guard, caps, budget, Stop, tool-call log); a tool the workspace
 * does not offer does not run and says how to switch it on.
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
    if (plan) this.pending.remember(this.name, input, plan);
    return prepared;
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<Record<string, unknown>>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const input = asArgs(options.input);
    const plan = this.pending.take(this.name, input);
    const availability = availabilityIn(this.deps.tools, this.name);
    const registry = this.deps.tools.manager.registry;
    if (availability !== 'offered') {
      // A registered but disabled tool goes through the registry, which refuses it and logs the refusal.
      if (registry.hasTool(this.name)) await registry.run(this.name, input);
      return textResult(enableHint(this.name, availability));
    }
    const controller = new AbortController();
    const cancelled = token.onCancellationRequested(() => controller.abort());
    try {
      if (token.isCancellationRequested) controller.abort();
      const result = await runPreApproved(this.name, plan, confirmWithDialog, () => registry.run(this.name, input, { signal: controller.signal }));
      return textResult(forModel(this.name, result));
    } finally {
      cancelled.dispose();
    }
  }
}

async function prepare(tool: string, input: Record<string, unknown>, deps: LmToolDeps): Promise<{ prepared: vscode.PreparedToolInvocation; plan?: ConfirmationPlan }> {
  const availability = availabilityIn(deps.tools, tool);
  if (availability !== 'offered') return { prepared: { invocationMessage: `Toolbelt: ${tool} is not active in this workspace` } };
  let plan: ConfirmationPlan | undefined;
  try {
    plan = await planConfirmation(tool, input, deps.context);
  } catch (error) {
    deps.log.warn(`Could not prepare the confirmation of ${tool}: ${String(error)}`);
    // Unknown is not safe: ask in general terms rather than not at all.
    plan = { tool, reasons: [], title: `Toolbelt: run ${tool}?`, message: `Toolbelt's **${tool}** will run with:\n\n\`\`\`json\n${JSON.stringify(input, null, 2)}\n\`\`\`` };
  }
  const prepared: vscode.PreparedToolInvocation = { invocationMessage: `Toolbelt: running ${tool}` };
  if (plan) prepared.confirmationMessages = { title: plan.title, message: new vscode.MarkdownString(plan.message) };
  return { prepared, plan };
}

/** The last line of a result that did not succeed: a next step for the model, and its status for @toolbelt. */
export const STATUS_NOTES: Record<Exclude<ToolResult['status'], 'ok'>, (tool: string) => string> = {
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
