import type { ApprovalDecision, ApprovalRecord, ApprovalView } from '../protocol';
import './approvalCard.css';
import { svgIcon } from './svgIcon';

export interface ApprovalCardActions {
  approve(requestId: string, decision: ApprovalDecision): void;
  review(requestId: string): void;
}

/**
 * The question inside a tool card that waits for a person: what will happen (commands and paths
 * as code), why it asks, the proposed file content as text, the buttons, and exactly what
 * "Allow for this chat" covers. With the card focused, Enter allows and Escape denies.
 */
export function approvalCard(approval: ApprovalView, toolName: string, actions: ApprovalCardActions): HTMLElement {
  const card = element('div', 'approval');
  card.tabIndex = 0;
  card.setAttribute('role', 'group');
  card.setAttribute('aria-label', `Approve ${toolName}: ${approval.summary}. Enter allows, Escape denies.`);
  card.dataset.requestId = approval.requestId;
  const id = approval.requestId;
  let decided = false;
  const decide = (decision: ApprovalDecision) => {
    if (decided) return;
    decided = true;
    for (const b of card.querySelectorAll('button')) b.disabled = true;
    actions.approve(id, decision);
  };

  card.append(question(approval));
  if (approval.why) card.append(paragraph('approval-why', approval.why));
  if (approval.proposed) card.append(proposedContent(approval.proposed));

  // One row at any width, as Copilot's card: Allow with a ▾ for "for this chat", Deny, Review.
  const buttons = element('div', 'approval-buttons');
  const menu = allowMenu(approval, () => decide('allowForChat'));
  const more = button('', 'primary allow-more', () => toggleMenu(menu, more));
  more.append(svgIcon('M4 6l4 4 4-4'));
  more.title = approval.scope ?? 'Allow for this chat';
  more.setAttribute('aria-label', `More ways to allow: ${approval.scope ?? 'for this chat'}`);
  more.setAttribute('aria-haspopup', 'menu');
  more.setAttribute('aria-expanded', 'false');
  const split = element('span', 'split-button');
  split.append(button('Allow', 'primary allow', () => decide('allow')), more);
  buttons.append(split, button('Deny', 'secondary deny', () => decide('deny')));
  if (approval.reviewable) {
    const review = button('Review', 'secondary review-change', () => actions.review(id));
    review.title = 'Open the difference in the diff editor; accept or reject from its title bar or here';
    buttons.append(review);
  }
  card.append(buttons, menu);
  card.append(paragraph('approval-keys', 'Enter allows · Escape denies'));

  card.addEventListener('keydown', (event) => {
    if (event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'Escape' && !menu.hidden) {
      event.preventDefault();
      event.stopPropagation();
      toggleMenu(menu, more, false);
      more.focus();
    } else if (event.key === 'Escape') {
      // The panel's own Escape stops the turn: here it only answers this question.
      event.preventDefault();
      event.stopPropagation();
      decide('deny');
    } else if (event.key === 'Enter' && event.target === card && !event.shiftKey) {
      event.preventDefault();
      decide('allow');
    } else if (event.target === card && event.key.length === 1) {
      // Someone typing a message: the keystroke goes to the composer, never into a decision.
      composer()?.focus();
    }
  });
  return card;
}

/** The ▾ menu under the buttons: "Allow … for this chat" and exactly what it covers. */
function allowMenu(approval: ApprovalView, allowForChat: () => void): HTMLElement {
  const menu = element('div', 'approval-menu');
  menu.setAttribute('role', 'menu');
  menu.hidden = true;
  const item = button(approval.scope ?? 'Allow for this chat', 'allow-for-chat', allowForChat);
  item.setAttribute('role', 'menuitem');
  menu.append(item);
  if (approval.scopeDetail) menu.append(paragraph('approval-scope', approval.scopeDetail));
  return menu;
}

function toggleMenu(menu: HTMLElement, opener: HTMLElement, open = menu.hidden): void {
  menu.hidden = !open;
  opener.setAttribute('aria-expanded', String(open));
  if (open) menu.querySelector<HTMLElement>('[role=menuitem]')?.focus();
}

/**
 * Gives the question the keyboard when it appears, unless someone is writing a message: then the
 * composer keeps its focus (and its text), and the card waits for a click or Tab.
 */
export function offerFocus(container: HTMLElement): void {
  const card = container.querySelector<HTMLElement>('.approval');
  if (!card || isTyping(document.activeElement)) return;
  card.focus({ preventScroll: true });
}

/** One line in the card's body: who decided, what, and when. */
export function decisionLine(record: ApprovalRecord): HTMLElement {
  const line = paragraph(`approval-decision decided-${record.outcome} by-${record.by}`, decisionText(record));
  line.title = record.by === 'rule' ? 'A rule decided: an earlier "Allow for this chat", or toolbelt.runBash.allowedCommands' : '';
  return line;
}

export function decisionText(record: ApprovalRecord): string {
  const at = new Date(record.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  switch (record.by) {
    case 'you':
      return `${record.outcome === 'denied' ? 'Denied' : record.outcome === 'allowedForChat' ? 'Allowed for this chat' : 'Allowed'} by you at ${at}`;
    case 'rule':
      return `Allowed by a rule at ${at}`;
    case 'auto':
      return `Ran without asking at ${at} (no approval needed)`;
  }
}

/** The short form for the card's summary line; nothing for calls nobody had to approve. */
export function decisionBadge(record: ApprovalRecord | undefined): string {
  if (!record || record.by === 'auto') return '';
  if (record.by === 'rule') return 'allowed by a rule';
  return record.outcome === 'denied' ? 'denied by you' : 'allowed by you';
}

/** Text with `backtick` spans as inline code elements (no markup is ever interpreted). */
export function withInlineCode(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  const pieces = text.split(/(`[^`\n]+`)/);
  for (const piece of pieces) {
    if (piece.length > 2 && piece.startsWith('`') && piece.endsWith('`')) {
      const code = element('code', '');
      code.textContent = piece.slice(1, -1);
      fragment.append(code);
    } else if (piece) {
      fragment.append(document.createTextNode(piece));
    }
  }
  return fragment;
}

/**
 * A call's arguments for reading: multi-line strings (a file's content, a script) as plain text
 * sections of their own, everything else as indented JSON.
 */
export function readableArguments(args: string): { label: string; text: string }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return [{ label: 'Arguments', text: args }];
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return [{ label: 'Arguments', text: JSON.stringify(parsed, null, 2) }];
  const record = parsed as Record<string, unknown>;
  const long = Object.keys(record).filter((key) => typeof record[key] === 'string' && (record[key] as string).includes('\n'));
  const rest = Object.fromEntries(Object.entries(record).filter(([key]) => !long.includes(key)));
  const sections = Object.keys(rest).length ? [{ label: 'Arguments', text: JSON.stringify(rest, null, 2) }] : [];
  return [...sections, ...long.map((key) => ({ label: key, text: record[key] as string }))];
}

function question(approval: ApprovalView): HTMLElement {
  const line = element('p', 'approval-question');
  if (approval.command !== undefined) {
    line.textContent = 'Run this command in the workspace folder?';
    const block = element('pre', 'approval-command');
    const code = element('code', '');
    code.textContent = approval.command;
    block.append(code);
    const wrapper = element('div', 'approval-what');
    wrapper.append(line, block);
    const rest = approval.summary.startsWith(`Run \`${approval.command}\``) ? approval.summary.slice(`Run \`${approval.command}\``.length).replace(/^\s*—\s*/, '') : '';
    if (rest) wrapper.append(withCode('approval-detail', rest));
    return wrapper;
  }
  line.append(withInlineCode(`${approval.summary}${/[.?!]$/.test(approval.summary) ? '' : '?'}`));
  if (approval.parts?.length) line.append(withCode('approval-detail', `No rule allows: ${approval.parts.map((p) => `\`${p}\``).join(' · ')}`));
  return line;
}

function proposedContent(proposed: NonNullable<ApprovalView['proposed']>): HTMLElement {
  const wrapper = element('div', 'approval-proposed');
  const label = element('div', 'approval-proposed-label');
  label.append(withInlineCode(`Proposed content of \`${proposed.path}\``));
  const block = element('pre', '');
  const code = element('code', '');
  code.textContent = proposed.content;
  block.append(code);
  wrapper.append(label, block);
  if (proposed.truncated) wrapper.append(paragraph('approval-detail', 'Only the beginning is shown here; Review shows all of it.'));
  return wrapper;
}

function withCode(className: string, text: string): HTMLElement {
  const line = element('span', className);
  line.append(withInlineCode(text));
  return line;
}

function isTyping(active: Element | null): boolean {
  if (active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement) return active.value.trim() !== '';
  return active instanceof HTMLElement && active.isContentEditable;
}

function composer(): HTMLElement | null {
  return document.querySelector<HTMLElement>('textarea.message-input, textarea');
}

function paragraph(className: string, text: string): HTMLElement {
  const p = element('p', className);
  p.textContent = text;
  return p;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}

function button(label: string, className: string, onClick: () => void): HTMLButtonElement {
  const node = element('button', className);
  node.type = 'button';
  node.textContent = label;
  node.addEventListener('click', (event) => {
    event.stopPropagation();
    onClick();
  });
  return node;
}
