import type { ErrorAction, TranscriptItem } from '../protocol';
import './errorCard.css';

export const ACTION_LABELS: Readonly<Record<ErrorAction, string>> = {
  connectModel: 'Connect a Model',
  setApiKey: 'Set API Key',
  openSettings: 'Open Settings',
  switchModel: 'Switch Model',
};

export interface ErrorCardActions {
  retry(): void;
  runAction(action: ErrorAction): void;
}

/** Splits a message at backticks: odd pieces are code (`ollama serve`, `toolbelt.baseUrl`). An unpaired backtick stays text. */
export function codeSpans(message: string): { text: string; code: boolean }[] {
  const parts = message.split('`');
  if (parts.length % 2 === 0) return [{ text: message, code: false }];
  return parts.map((text, i) => ({ text, code: i % 2 === 1 })).filter((p) => p.text !== '');
}

/** A failed turn: what went wrong in words (code as code), the buttons that fix it, and Retry. */
export function errorCard(item: Extract<TranscriptItem, { kind: 'error' }>, actions: ErrorCardActions): HTMLElement {
  const element = document.createElement('div');
  element.className = 'error-item';
  element.setAttribute('role', 'alert');
  const message = document.createElement('p');
  for (const part of codeSpans(item.message)) {
    if (part.code) {
      const code = document.createElement('code');
      code.textContent = part.text;
      message.append(code);
    } else message.append(part.text);
  }
  const buttons = document.createElement('div');
  buttons.className = 'error-actions';
  const wanted = item.actions ?? (item.action ? [item.action] : []);
  for (const [index, action] of wanted.entries()) {
    buttons.append(cardButton(ACTION_LABELS[action], `${index === 0 ? 'primary' : 'secondary'} error-action`, () => actions.runAction(action), action));
  }
  if (item.retryable) buttons.append(cardButton('Retry', `${wanted.length ? 'secondary' : 'primary'} retry-button`, () => actions.retry()));
  element.append(message, buttons);
  return element;
}

function cardButton(label: string, className: string, onClick: () => void, action?: ErrorAction): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.className = className;
  element.textContent = label;
  if (action) element.dataset.action = action;
  element.addEventListener('click', (event) => {
    event.stopPropagation();
    onClick();
  });
  return element;
}

/**
 * Only the newest error keeps Retry, and only while nothing was sent after it: Retry goes on
 * from the end of the conversation, so an older card's button would retry something else.
 */
export function keepRetryOnNewestError(container: HTMLElement): void {
  const errors = [...container.querySelectorAll<HTMLElement>(':scope > .error-item')];
  const newest = errors.at(-1);
  let sentSince = false;
  for (let next = newest?.nextElementSibling; next; next = next.nextElementSibling) {
    if (next.classList.contains('user')) sentSince = true;
  }
  for (const card of errors) {
    const retry = card.querySelector<HTMLElement>('.retry-button');
    if (retry) retry.hidden = card !== newest || sentSince;
  }
}
