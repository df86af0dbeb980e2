import * as path from 'node:path';
import * as vscode from 'vscode';
import { countChanges, describeMerge } from '../../chat/applySummary';
import type { ChatController } from '../../chat/chatController';
import type { SnippetMerge } from '../../chat/snippetMerge';
import type { ApplyDecision, ApplyStatus, TranscriptItem } from '../../protocol';
import { Disposables } from '../dispose';

/** Read-only documents holding what Apply to File would make of a file, for the diff editor's right side. */
export const APPLY_SCHEME = 'toolbelt-apply';

type ApplyItem = Extract<TranscriptItem, { kind: 'apply' }>;
type ApplyChat = Pick<ChatController, 'busy' | 'runPersonToolCall' | 'showItem' | 'item'>;

interface Proposal {
  itemId: string;
  /** As write_file takes it: relative to the workspace. */
  path: string;
  uri: vscode.Uri;
  /** The file's text when the change was proposed; undefined when it did not exist. */
  before: string | undefined;
  after: string;
  proposedUri: vscode.Uri;
}

/**
 * Apply to File as Copilot's edits work: the merged file opens as a diff against the file as it
 * is, and nothing is written until the person chooses Keep (in the panel or the diff editor's
 * title bar); Undo drops it. Keep writes through write_file in a turn of its own, so the write is
 * logged, asks where the workspace's policy asks, and "Undo this turn" puts the file back.
 */
export class ApplyPreviews extends Disposables {
  private readonly proposals = new Map<string, Proposal>();
  private next = 1;

  constructor(
    private readonly chat: () => ApplyChat,
    private readonly log: Pick<vscode.LogOutputChannel, 'info' | 'warn'>,
  ) {
    super();
    this.register(vscode.workspace.registerTextDocumentContentProvider(APPLY_SCHEME, { provideTextDocumentContent: (uri) => this.contentOf(uri) }));
    this.register(vscode.commands.registerCommand('toolbelt.apply.keep', (uri?: vscode.Uri) => this.decideInEditor(uri, 'keep')));
    this.register(vscode.commands.registerCommand('toolbelt.apply.undo', (uri?: vscode.Uri) => this.decideInEditor(uri, 'discard')));
  }

  /** Shows the change in the panel and as a diff; writes nothing. */
  async propose(target: { path: string; uri: vscode.Uri }, before: string | undefined, merge: SnippetMerge, selectedLines?: { start: number; end: number }): Promise<void> {
    const itemId = `apply-${Date.now().toString(36)}-${this.next++}`;
    const proposal: Proposal = { itemId, path: target.path, uri: target.uri, before, after: merge.text, proposedUri: vscode.Uri.from({ scheme: APPLY_SCHEME, path: `/${itemId}/${target.path}` }) };
    this.proposals.set(itemId, proposal);
    const { added, removed } = countChanges(before ?? '', merge.text);
    this.chat().showItem({ kind: 'apply', id: itemId, path: target.path, summary: describeMerge(merge, selectedLines), added, removed, status: 'pending' });
    this.log.info(`Apply to File proposes a change to ${target.path} (${merge.kind}, +${added} −${removed}).`);
    await this.showDiff(proposal);
  }

  async decide(itemId: string, decision: ApplyDecision): Promise<void> {
    const proposal = this.proposals.get(itemId);
    const item = this.chat().item(itemId);
    const shown = item?.kind === 'apply' ? item : undefined;
    if (!proposal) {
      if (shown?.status === 'pending') this.update(shown, 'expired', 'This change is no longer open (the window was reloaded since). Choose Apply on the code block again.');
      return;
    }
    if (decision === 'show') return this.showDiff(proposal);
    if (decision === 'discard') {
      this.proposals.delete(itemId);
      await this.closeDiff(proposal);
      if (shown) this.update(shown, 'discarded', `Undone: nothing was written to ${proposal.path}.`);
      return;
    }
    await this.keep(proposal, shown);
  }

  override dispose(): void {
    super.dispose();
    this.proposals.clear();
  }

  private async keep(proposal: Proposal, shown: ApplyItem | undefined): Promise<void> {
    const chat = this.chat();
    if (chat.busy) {
      void vscode.window.showInformationMessage('Toolbelt: a reply is still being written. Keep the change once it is done (or stop it).');
      return;
    }
    this.proposals.delete(proposal.itemId);
    await this.closeDiff(proposal);
    if ((await currentText(proposal.uri)) !== proposal.before) {
      if (shown) this.update(shown, 'expired', `Not written: ${proposal.path} changed since this was proposed. Choose Apply on the code block again.`);
      return;
    }
    const result = await chat.runPersonToolCall('write_file', { path: proposal.path, content: proposal.after });
    this.log.info(`Apply to File ${JSON.stringify(proposal.path)}: ${result.status}.`);
    if (result.status === 'ok') {
      if (shown) this.update(shown, 'kept', 'Kept: the file is written. "Undo this turn" below puts it back.');
      await vscode.window.showTextDocument(proposal.uri, { preview: true, preserveFocus: true }).then(undefined, () => undefined);
    } else if (shown) {
      this.update(shown, 'failed', result.status === 'refused' ? `Not written: the write to ${proposal.path} was denied.` : `Not written: ${result.text}`);
    }
  }

  private update(item: ApplyItem, status: ApplyStatus, outcome: string): void {
    this.chat().showItem({ ...item, status, outcome });
  }

  private decideInEditor(uri: vscode.Uri | undefined, decision: ApplyDecision): Promise<void> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target || target.scheme !== APPLY_SCHEME) return Promise.resolve();
    return this.decide(idOf(target), decision);
  }

  private contentOf(uri: vscode.Uri): string {
    const id = idOf(uri);
    const proposal = this.proposals.get(id.replace(/~before$/, ''));
    if (!proposal) return '';
    return id.endsWith('~before') ? '' : proposal.after;
  }

  private async showDiff(proposal: Proposal): Promise<void> {
    const left = proposal.before === undefined ? vscode.Uri.from({ scheme: APPLY_SCHEME, path: `/${proposal.itemId}~before/${proposal.path}` }) : proposal.uri;
    const title = `${path.posix.basename(proposal.path)}: Apply (${proposal.before === undefined ? 'new file' : 'now ↔ proposed'}) · Keep or Undo`;
    await vscode.commands.executeCommand('vscode.diff', left, proposal.proposedUri, title, { preview: false }).then(undefined, (error: unknown) => this.log.warn(`Could not open the diff of ${proposal.path}: ${String(error)}`));
  }

  private async closeDiff(proposal: Proposal): Promise<void> {
    const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === proposal.proposedUri.toString());
    if (tabs.length) await vscode.window.tabGroups.close(tabs).then(undefined, () => undefined);
  }
}

/** An empty read-only document named like `file`: the left side of a diff for a file that did not exist. */
export function emptyDocument(file: string): vscode.Uri {
  return vscode.Uri.from({ scheme: APPLY_SCHEME, path: `/none~before/${path.basename(file)}` });
}

function idOf(uri: vscode.Uri): string {
  return uri.path.split('/')[1] ?? '';
}

/** The file's text (from its editor when it is open), undefined when it does not exist. */
export async function currentText(uri: vscode.Uri): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri.toString());
  if (open) return open.getText();
  try {
    return new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}
