import { relativeTime } from './relativeTime';
import type { HistoryEntry, WebviewMessage } from '../protocol';
import './historyList.css';
import { button, el } from './transcript';

type Post = (message: WebviewMessage) => void;

/**
 * The chat history inside the panel: every stored chat with its title and how long ago it was
 * last used, the current one marked. Arrow keys move, Enter opens, F2 renames in place, Delete
 * asks in the row and then deletes, Escape closes (or cancels a rename or a delete first).
 */
export class HistoryList {
  private readonly element = el('section', 'history-list');
  private readonly list = el('ul', 'history-entries');
  private readonly problem = el('p', 'history-problem');
  private readonly empty = el('p', 'history-empty');
  private entries: HistoryEntry[] = [];
  private currentId = '';
  private focusedId: string | undefined;
  /** A rename or a delete question is open in a row: a list from the host waits until it closes. */
  private asking = false;

  constructor(
    root: HTMLElement,
    private readonly post: Post,
    private readonly onClose: () => void,
    private readonly now: () => number = Date.now,
  ) {
    this.element.hidden = true;
    this.element.setAttribute('role', 'dialog');
    this.element.setAttribute('aria-label', 'Chat history');
    const header = el('header', 'history-header');
    const title = el('h2');
    title.textContent = 'Chat history';
    const close = button('×', 'history-close', () => this.hide());
    close.title = 'Close (Escape)';
    close.setAttribute('aria-label', 'Close the chat history');
    header.append(title, close);
    this.problem.setAttribute('role', 'alert');
    this.problem.hidden = true;
    this.empty.textContent = 'No earlier chats in this workspace yet.';
    this.list.setAttribute('role', 'listbox');
    this.list.setAttribute('aria-label', 'Chats, newest first. Enter opens, F2 renames, Delete deletes, Escape closes.');
    const hint = el('p', 'history-hint');
    hint.textContent = '↑↓ move · Enter open · F2 rename · Delete delete · Esc close';
    this.element.append(header, this.problem, this.empty, this.list, hint);
    this.element.addEventListener('keydown', (event) => this.onKey(event));
    root.append(this.element);
  }

  get open(): boolean {
    return !this.element.hidden;
  }

  /** New entries from the host; `show` opens the list, otherwise an open list is only refreshed. */
  update(entries: HistoryEntry[], currentId: string, show: boolean, problem?: string): void {
    const same = JSON.stringify([entries, currentId]) === JSON.stringify([this.entries, this.currentId]);
    this.entries = entries;
    this.currentId = currentId;
    if (!show && !this.open) return;
    const opening = !this.open;
    // Nothing changed (a rename the list already shows), or a question is open in a row: the rows stay as they are.
    if (!opening && !problem && this.problem.hidden && (same || this.asking)) return;
    this.element.hidden = false;
    this.problem.hidden = !problem;
    this.problem.textContent = problem ?? '';
    if (opening || !entries.some((e) => e.id === this.focusedId)) this.focusedId = (entries.find((e) => e.id === currentId) ?? entries[0])?.id;
    this.render();
    const focused = this.row(this.focusedId);
    if (focused) focused.focus();
    else this.element.querySelector<HTMLElement>('.history-close')?.focus();
  }

  hide(): void {
    if (!this.open) return;
    this.element.hidden = true;
    this.onClose();
  }

  private render(): void {
    this.asking = false;
    this.empty.hidden = this.entries.length > 0;
    this.list.replaceChildren(...this.entries.map((entry) => this.entryRow(entry)));
  }

  private entryRow(entry: HistoryEntry): HTMLLIElement {
    const row = el('li', 'history-entry');
    const current = entry.id === this.currentId;
    row.classList.toggle('current', current);
    row.dataset.id = entry.id;
    row.setAttribute('role', 'option');
    row.setAttribute('aria-selected', String(entry.id === this.focusedId));
    row.tabIndex = entry.id === this.focusedId ? 0 : -1;
    const when = relativeTime(entry.updatedAt, this.now());
    row.setAttribute('aria-label', `${entry.title}, ${when}${current ? ', current chat' : ''}`);
    const title = el('span', 'history-title');
    title.textContent = entry.title;
    const meta = el('span', 'history-meta');
    const time = el('time', 'history-time');
    time.dateTime = new Date(entry.updatedAt).toISOString();
    time.title = new Date(entry.updatedAt).toLocaleString();
    time.textContent = when;
    meta.append(time, ` · ${entry.messages} message${entry.messages === 1 ? '' : 's'}`);
    if (current) {
      const badge = el('span', 'history-current');
      badge.textContent = 'current';
      meta.append(' ', badge);
    }
    const actions = el('span', 'history-actions');
    const rename = button('Rename', 'link-button history-rename', () => this.startRename(entry.id));
    rename.title = 'Rename (F2)';
    const remove = button('Delete', 'link-button history-delete', () => this.askDelete(entry.id));
    remove.title = 'Delete (Delete)';
    for (const b of [rename, remove]) b.tabIndex = -1;
    actions.append(rename, remove);
    row.append(title, meta, actions);
    row.addEventListener('click', () => this.openEntry(entry.id));
    row.addEventListener('focus', () => this.setFocused(entry.id));
    return row;
  }

  private onKey(event: KeyboardEvent): void {
    const target = event.target as HTMLElement;
    if (target.closest('.history-rename-input, .history-confirm')) return; // they handle their own keys
    const index = this.entries.findIndex((e) => e.id === this.focusedId);
    const move = (to: number) => {
      const entry = this.entries[Math.max(0, Math.min(this.entries.length - 1, to))];
      if (entry) this.row(entry.id)?.focus();
    };
    const handled = new Map<string, () => void>([
      ['ArrowDown', () => move(index + 1)],
      ['ArrowUp', () => move(index - 1)],
      ['Home', () => move(0)],
      ['End', () => move(this.entries.length - 1)],
      ['Escape', () => this.hide()],
    ]);
    if (target.classList.contains('history-entry') && this.focusedId) {
      const id = this.focusedId;
      handled.set('Enter', () => this.openEntry(id));
      handled.set('F2', () => this.startRename(id));
      handled.set('Delete', () => this.askDelete(id));
    }
    const action = handled.get(event.key);
    if (!action) return;
    event.preventDefault();
    event.stopPropagation();
    action();
  }

  private setFocused(id: string): void {
    if (this.focusedId === id) return;
    this.focusedId = id;
    for (const row of this.list.querySelectorAll<HTMLElement>('.history-entry')) {
      const selected = row.dataset.id === id;
      row.tabIndex = selected ? 0 : -1;
      row.setAttribute('aria-selected', String(selected));
    }
  }

  private openEntry(id: string): void {
    if (id !== this.currentId) this.post({ type: 'openChat', chatId: id });
    this.hide();
  }

  /** F2: the title becomes a text box; Enter saves, Escape or leaving it keeps the old title. */
  private startRename(id: string): void {
    const row = this.row(id);
    const entry = this.entries.find((e) => e.id === id);
    const title = row?.querySelector('.history-title');
    if (!row || !entry || !title) return;
    const input = el('input', 'history-rename-input');
    input.value = entry.title;
    input.maxLength = 200;
    input.setAttribute('aria-label', `New title for ${entry.title}. Enter saves, Escape cancels.`);
    let done = false;
    const finish = (save: boolean) => {
      if (done) return;
      done = true;
      const value = input.value.trim();
      if (save && value && value !== entry.title) {
        entry.title = value;
        this.post({ type: 'renameChat', chatId: id, title: value });
      }
      this.render();
      this.row(id)?.focus();
    };
    input.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' && event.key !== 'Escape') return;
      event.preventDefault();
      event.stopPropagation();
      finish(event.key === 'Enter');
    });
    input.addEventListener('blur', () => finish(false));
    input.addEventListener('click', (event) => event.stopPropagation());
    title.replaceWith(input);
    this.asking = true;
    input.focus();
    input.select();
  }

  /** Delete: the row asks first; Enter (on Delete) deletes, Escape or Cancel keeps the chat. */
  private askDelete(id: string): void {
    const row = this.row(id);
    const entry = this.entries.find((e) => e.id === id);
    if (!row || !entry) return;
    const confirm = el('div', 'history-confirm');
    confirm.setAttribute('role', 'group');
    const question = el('span');
    question.textContent = `Delete “${entry.title}”?${entry.id === this.currentId ? ' A new chat starts.' : ''}`;
    const cancel = () => {
      this.render();
      this.row(id)?.focus();
    };
    const yes = button('Delete', 'primary history-confirm-delete', () => {
      const index = this.entries.indexOf(entry);
      this.focusedId = (this.entries[index + 1] ?? this.entries[index - 1])?.id;
      this.asking = false;
      this.post({ type: 'deleteChat', chatId: id });
    });
    const no = button('Cancel', 'secondary', cancel);
    confirm.append(question, yes, no);
    confirm.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return;
      event.preventDefault();
      event.stopPropagation();
      cancel();
    });
    confirm.addEventListener('click', (event) => event.stopPropagation());
    row.replaceChildren(confirm);
    this.asking = true;
    yes.focus();
  }

  private row(id: string | undefined): HTMLElement | null {
    return id ? this.list.querySelector<HTMLElement>(`.history-entry[data-id="${CSS.escape(id)}"]`) : null;
  }
}
