import type { ApplyDecision, TranscriptItem } from '../protocol';
import { revealHiddenCharacters } from '../protocol';
import './applyCard.css';
import { pathLabel } from './pathLabel';

type ApplyItem = Extract<TranscriptItem, { kind: 'apply' }>;

const STATUS: Record<ApplyItem['status'], string> = {
  pending: 'waiting for Keep or Undo',
  kept: 'kept',
  discarded: 'undone',
  failed: 'not written',
  expired: 'no longer open',
};

/**
 * An Apply to File proposal: the file, the lines it adds and removes, what it does, and Keep /
 * Undo / Show Diff while it waits (as Copilot's edits do). Nothing is written before Keep.
 */
export function applyCard(item: ApplyItem, decide: (itemId: string, decision: ApplyDecision) => void): HTMLElement {
  const card = document.createElement('div');
  card.className = `apply-card status-${item.status}`;
  card.dataset.path = item.path;
  card.setAttribute('role', 'group');
  card.setAttribute('aria-label', `Proposed change to ${item.path}, ${STATUS[item.status]}`);
  const head = document.createElement('div');
  head.className = 'apply-head';
  const counts = document.createElement('span');
  counts.className = 'apply-counts';
  const added = document.createElement('span');
  added.className = 'apply-added';
  added.textContent = `+${item.added}`;
  const removed = document.createElement('span');
  removed.className = 'apply-removed';
  removed.textContent = `−${item.removed}`;
  counts.append(added, ' ', removed);
  counts.setAttribute('aria-label', `${item.added} lines added, ${item.removed} removed`);
  const state = document.createElement('span');
  state.className = 'apply-state';
  state.textContent = STATUS[item.status];
  head.append(pathLabel(revealHiddenCharacters(item.path), 'apply-path'), counts);
  // While it waits, the buttons say so.
  if (item.status !== 'pending') head.append(state);
  const summary = document.createElement('p');
  summary.className = 'apply-summary';
  summary.textContent = item.summary;
  card.append(head, summary);
  if (item.status === 'pending') {
    const buttons = document.createElement('div');
    buttons.className = 'apply-buttons';
    buttons.append(
      action('Keep', 'primary apply-keep', `Write this change to ${item.path}`, () => decide(item.id, 'keep')),
      action('Undo', 'secondary apply-undo', 'Drop this change: nothing is written', () => decide(item.id, 'discard')),
      action('Show Diff', 'link-button apply-show', 'Open the change in the diff editor again', () => decide(item.id, 'show')),
    );
    card.append(buttons);
  } else if (item.outcome) {
    const outcome = document.createElement('p');
    outcome.className = 'apply-outcome';
    outcome.textContent = item.outcome;
    card.append(outcome);
  }
  return card;
}

function action(label: string, className: string, title: string, onClick: () => void): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = className;
  button.textContent = label;
  button.title = title;
  button.addEventListener('click', (event) => {
    event.stopPropagation();
    onClick();
  });
  return button;
}
