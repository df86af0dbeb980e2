import { revealHiddenCharacters, type ApplyDecision, type ApprovalDecision, type ErrorAction, type ToolCardStatus, type TranscriptItem } from '../protocol';
import { applyCard } from './applyCard';
import { skippedLine, undoneLine } from './undoWording';
import { errorCard, keepRetryOnNewestError } from './errorCard';
import { approvalCard, decisionBadge, decisionLine, offerFocus, readableArguments } from './approvalCard';
import { decorateCodeBlocks, type CodeBlockMessage } from './codeBlocks';
import { withChips } from './attachments';
import { renderMarkdown } from './markdown';

/** How much of a result a card shows before "Show all". */
const RESULT_PREVIEW_CHARS = 1500;

export interface TranscriptActions {
  approve(requestId: string, decision: ApprovalDecision): void;
  retry(): void;
  runAction(action: ErrorAction): void;
  copy(text: string): void;
  openLink(href: string): void;
  undo(turnId: string): void;
  review(requestId: string): void;
  compare(turnId: string, path: string): void;
  /** A code block's Insert at Cursor, Apply to File or New File. */
  code(message: CodeBlockMessage): void;
  /** Enables the switched-off tool a model called and asks again. */
  enableAndRetry(tool: string): void;
  /** Keep, Undo or Show Diff on an Apply to File proposal. */
  applyDecision(itemId: string, decision: ApplyDecision): void;
}

const STATUS_TEXT: Record<ToolCardStatus, string> = {
  pending: 'preparing…',
  awaiting_approval: 'waiting for your approval',
  running: 'running…',
  ok: 'done',
  error: 'failed',
  denied: 'denied',
  cancelled: 'stopped',
};

/**
 * The conversation in the DOM, one element per item. Updates touch only the item they name,
 * and streamed text is rendered at most once per animation frame, so a long answer never
 * re-renders the rest of the conversation.
 */
export class TranscriptView {
  private readonly elements = new Map<string, HTMLElement>();
  private readonly texts = new Map<string, string>();
  private readonly dirty = new Set<string>();
  private frame = 0;

  constructor(
    private readonly container: HTMLElement,
    private readonly actions: TranscriptActions,
  ) {}

  reset(items: TranscriptItem[]): void {
    this.container.replaceChildren();
    this.elements.clear();
    this.texts.clear();
    this.dirty.clear();
    for (const item of items) this.upsert(item);
    keepRetryOnNewestError(this.container);
    this.scrollToEnd();
  }

  get size(): number {
    return this.elements.size;
  }

  /** The element an item is shown in now (upserts replace it), for the buttons turnActions.ts adds. */
  elementFor(id: string): HTMLElement | undefined {
    return this.elements.get(id);
  }

  upsert(item: TranscriptItem): void {
    const stick = this.nearEnd();
    const previous = this.elements.get(item.id);
    const element = this.render(item, previous);
    if (previous) previous.replaceWith(element);
    else this.container.append(element);
    this.elements.set(item.id, element);
    if (item.kind === 'error' || item.kind === 'user') keepRetryOnNewestError(this.container);
    if (item.kind === 'tool' && item.approval) {
      element.scrollIntoView({ block: 'nearest' });
      offerFocus(element);
    } else if (stick) this.scrollToEnd();
  }

  appendText(itemId: string, text: string): void {
    this.texts.set(itemId, (this.texts.get(itemId) ?? '') + text);
    this.dirty.add(itemId);
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  /** Renders the streamed text that arrived since the last frame. */
  flush(): void {
    this.frame = 0;
    const stick = this.nearEnd();
    for (const id of this.dirty) {
      const body = this.elements.get(id)?.querySelector<HTMLElement>('.markdown');
      if (body) this.fillMarkdown(body, this.texts.get(id) ?? '', true);
    }
    this.dirty.clear();
    if (stick) this.scrollToEnd();
  }

  private render(item: TranscriptItem, previous: HTMLElement | undefined): HTMLElement {
    switch (item.kind) {
      case 'user':
        return withChips(this.message('user', 'You', item.text, false), item.attachments, (href) => this.actions.openLink(href));
      case 'assistant': {
        this.texts.set(item.id, item.text);
        this.dirty.delete(item.id);
        const element = this.message('assistant', 'Toolbelt', item.text, true, item.streaming === true);
        element.classList.toggle('streaming', item.streaming === true);
        element.setAttribute('aria-busy', String(item.streaming === true));
        return element;
      }
      case 'tool':
        return this.toolCard(item, previous);
      case 'error':
        return errorCard(item, this.actions);
      case 'notice': {
        const element = el('div', 'notice');
        element.textContent = item.text;
        return element;
      }
      case 'turn':
        return this.turnRow(item);
      case 'apply':
        return applyCard(item, (id, decision) => this.actions.applyDecision(id, decision));
    }
  }

  /** What a finished turn changed, with Undo; after an undo, what was restored and what was skipped. */
  private turnRow(item: Extract<TranscriptItem, { kind: 'turn' }>): HTMLElement {
    const element = el('div', 'turn-changes');
    element.setAttribute('role', 'group');
    element.setAttribute('aria-label', 'Changes made by this turn');
    const line = el('p');
    const count = item.files.length;
    if (count) line.append(`Changed ${count} file${count === 1 ? '' : 's'}: `, breakableAtSlashes(item.files.map(revealHiddenCharacters).join(', ')));
    else line.textContent = 'No files changed by Toolbelt\'s file tools.';
    element.append(line);
    for (const note of item.notes) {
      const noteLine = el('p', 'turn-note');
      noteLine.textContent = revealHiddenCharacters(note);
      element.append(noteLine);
    }
    if (item.undone) {
      const done = el('p', 'turn-undone');
      done.textContent = undoneLine(item.undone);
      element.append(done);
      for (const skip of item.undone.skipped) {
        const row = el('p', 'turn-skipped');
        row.textContent = `${skippedLine(skip)} `;
        if (skip.comparable) {
          const compare = button('Compare', 'link-button compare-skipped', () => this.actions.compare(item.turnId, skip.path));
          compare.title = 'Open the file as it was before the turn beside the file now';
          row.append(compare);
        }
        element.append(row);
      }
    } else if (count > 0) {
      const undo = button('Undo this turn', 'secondary undo-turn', () => this.actions.undo(item.turnId));
      undo.title = 'Put back the files this turn changed (files you changed since are left alone)';
      element.append(undo);
    }
    if (item.problem) {
      const problem = el('p', 'turn-problem');
      problem.setAttribute('role', 'alert');
      problem.textContent = item.problem;
      element.append(problem);
    }
    return element;
  }

  private message(role: 'user' | 'assistant', label: string, text: string, markdown: boolean, streaming = false): HTMLElement {
    const element = el('article', `message ${role}`);
    element.setAttribute('aria-label', `${label} said`);
    const author = el('div', 'author');
    author.textContent = label;
    const body = el('div', markdown ? 'body markdown' : 'body');
    if (markdown) this.fillMarkdown(body, text, streaming);
    else body.textContent = text;
    element.append(author, body);
    return element;
  }

  private fillMarkdown(body: HTMLElement, text: string, streaming: boolean): void {
    body.innerHTML = renderMarkdown(text, { streaming });
    decorateCodeBlocks(body, this.actions);
    for (const link of body.querySelectorAll('a')) {
      link.addEventListener('click', (event) => {
        event.preventDefault();
        const href = link.getAttribute('href');
        if (href) this.actions.openLink(href);
      });
    }
  }

  private toolCard(item: Extract<TranscriptItem, { kind: 'tool' }>, previous: HTMLElement | undefined): HTMLElement {
    const card = el('details', `tool-card status-${item.status}`) as HTMLDetailsElement;
    card.dataset.tool = item.name;
    const wasOpen = previous instanceof HTMLDetailsElement ? previous.open : false;
    card.open = item.status === 'awaiting_approval' || item.disabledTool === true || wasOpen;
    const summary = el('summary');
    const icon = el('span', 'status-icon');
    icon.setAttribute('aria-hidden', 'true');
    // Names and arguments come from the model: hidden and direction-changing characters are shown, not obeyed.
    const name = el('span', 'tool-name');
    name.textContent = revealHiddenCharacters(item.label ?? item.name);
    if (item.label) name.title = `The model calls it ${revealHiddenCharacters(item.name)}`;
    const args = el('span', 'tool-args');
    args.textContent = revealHiddenCharacters(argumentSummary(item.arguments));
    const meta = el('span', 'tool-meta');
    const ran = item.durationMs !== undefined && item.status !== 'running' ? formatDuration(item.durationMs) : '';
    const badge = decisionBadge(item.decision);
    // "denied · denied by you" says it twice.
    const status = item.status === 'denied' && badge.startsWith('denied') ? '' : STATUS_TEXT[item.status];
    meta.textContent = [status, ran, badge].filter(Boolean).join(' · ');
    meta.title = [meta.textContent, ran ? 'Run time: the time spent deciding is not counted' : ''].filter(Boolean).join('. ');
    summary.append(icon, name, args, meta);
    summary.setAttribute('aria-label', `Tool ${revealHiddenCharacters(item.label ?? item.name)}, ${STATUS_TEXT[item.status]}`);
    card.append(summary);

    const body = el('div', 'tool-body');
    if (item.approval) body.append(approvalCard(item.approval, revealHiddenCharacters(item.name), this.actions));
    if (item.decision) body.append(decisionLine(item.decision));
    if (item.disabledTool) {
      const enable = button(`Enable ${revealHiddenCharacters(item.name)} and Retry`, 'primary enable-retry', () => this.actions.enableAndRetry(item.name));
      enable.title = 'Switch this tool on for the workspace and ask the model again';
      body.append(enable);
    }
    // While the card shows the proposed content, the arguments do not repeat it.
    const parts = item.arguments ? readableArguments(item.arguments).filter((part) => !item.approval?.proposed || part.label === 'Arguments') : [];
    for (const part of parts) body.append(section(part.label, revealHiddenCharacters(part.text)));
    if (item.result !== undefined) {
      const full = item.result + (item.resultTruncated ? '\n[… cut for display; the model received all of it]' : '');
      const result = section('Result', full.length > RESULT_PREVIEW_CHARS ? `${full.slice(0, RESULT_PREVIEW_CHARS)}…` : full);
      if (full.length > RESULT_PREVIEW_CHARS) {
        const more = button(`Show all (${full.length.toLocaleString()} characters)`, 'link-button', () => {
          result.querySelector('pre')!.textContent = full;
          more.remove();
        });
        result.append(more);
      }
      body.append(result);
    }
    card.append(body);
    return card;
  }

  private nearEnd(): boolean {
    const scroller = this.container.parentElement ?? this.container;
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
  }

  private scrollToEnd(): void {
    const scroller = this.container.parentElement ?? this.container;
    scroller.scrollTop = scroller.scrollHeight;
  }
}

/** A path that wraps after its slashes rather than inside a name. */
function breakableAtSlashes(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  text.split('/').forEach((part, index) => {
    if (index > 0) fragment.append('/', document.createElement('wbr'));
    fragment.append(part);
  });
  return fragment;
}

function section(label: string, text: string): HTMLElement {
  const wrapper = el('div', 'section');
  const title = el('div', 'section-label');
  title.textContent = label;
  const pre = el('pre');
  pre.textContent = text;
  wrapper.append(title, pre);
  return wrapper;
}

/** One line that says what a call does: its command, path, pattern or expression. */
export function argumentSummary(args: string): string {
  if (!args.trim()) return '';
  try {
    const parsed = JSON.parse(args) as Record<string, unknown>;
    const preferred = ['command', 'path', 'source', 'pattern', 'expression', 'timezone', 'reason'];
    const key = preferred.find((k) => typeof parsed[k] === 'string') ?? Object.keys(parsed).find((k) => typeof parsed[k] === 'string');
    const value = key ? String(parsed[key]) : JSON.stringify(parsed);
    const flat = value.replace(/\s+/g, ' ');
    return flat.length > 60 ? `${flat.slice(0, 60)}…` : flat;
  } catch {
    return args.length > 60 ? `${args.slice(0, 60)}…` : args;
  }
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  return element;
}

export function button(label: string, className: string, onClick: () => void): HTMLButtonElement {
  const element = el('button', className);
  element.type = 'button';
  element.textContent = label;
  element.addEventListener('click', (event) => {
    event.stopPropagation();
    onClick();
  });
  return element;
}
