import type { ContextSuggestion, HostMessage, WebviewMessage } from '../protocol';
import './hashSuggestions.css';
import { svgIcon } from './svgIcon';

export interface HashSuggestionOptions {
  input: HTMLTextAreaElement;
  post(message: WebviewMessage): void;
  /** Characters the composer's attachments hold already. */
  used(): number;
  /** Opens the full picker (every file, searched by VS Code). */
  browse(): void;
}

const ICONS: Record<ContextSuggestion['kind'], string> = {
  selection: 'M2.5 4h11M2.5 8h11M2.5 12h7',
  editor: 'M4 1.5h5l3 3v10H4zM9 1.5v3h3',
  file: 'M4 1.5h5l3 3v10H4zM9 1.5v3h3',
  symbol: 'M5 3 2 8l3 5M11 3l3 5-3 5',
};

/**
 * `#` at the start of a word opens a list right at the input: the selection, the open editors,
 * workspace files and symbols, narrowed as the person types after the `#` (the host answers each
 * query). ↑/↓ move, Enter or Tab attaches, Escape closes; "Browse files…" opens the full picker.
 */
export class HashSuggestions {
  readonly element = document.createElement('div');
  private start: number | undefined;
  private seq = 0;
  private items: ContextSuggestion[] = [];
  private active = 0;

  constructor(private readonly options: HashSuggestionOptions) {
    this.element.className = 'hash-menu';
    this.element.setAttribute('role', 'listbox');
    this.element.setAttribute('aria-label', 'Context to attach');
    this.element.hidden = true;
    options.input.addEventListener('keydown', (event) => this.onKey(event));
    options.input.addEventListener('input', () => this.onInput());
    options.input.addEventListener('blur', () => setTimeout(() => this.close(), 150));
  }

  get open(): boolean {
    return this.start !== undefined;
  }

  /** A `#` was typed at `at` (the start of a word). */
  openAt(at: number): void {
    this.start = at;
    this.items = [];
    this.active = 0;
    this.request();
  }

  receive(message: Extract<HostMessage, { type: 'contextSuggestions' }>): void {
    if (!this.open || message.seq !== this.seq) return;
    this.items = message.items;
    this.active = Math.min(this.active, this.items.length);
    this.render();
  }

  close(): void {
    this.start = undefined;
    this.element.hidden = true;
    this.element.replaceChildren();
    this.options.input.removeAttribute('aria-activedescendant');
  }

  private query(): string | undefined {
    const { input } = this.options;
    const caret = input.selectionStart ?? 0;
    if (this.start === undefined || input.value[this.start] !== '#' || caret <= this.start) return undefined;
    const typed = input.value.slice(this.start + 1, caret);
    return /\s/.test(typed) ? undefined : typed;
  }

  private onInput(): void {
    if (!this.open) return;
    if (this.query() === undefined) this.close();
    else this.request();
  }

  private request(): void {
    const query = this.query();
    if (query === undefined) return this.close();
    this.options.post({ type: 'suggestContext', seq: ++this.seq, query });
  }

  private onKey(event: KeyboardEvent): void {
    if (!this.open || event.isComposing) return;
    const count = this.items.length + 1; // the suggestions, then "Browse files…"
    const handled = () => {
      event.preventDefault();
      event.stopImmediatePropagation();
    };
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      handled();
      this.active = (this.active + (event.key === 'ArrowDown' ? 1 : count - 1)) % count;
      this.render();
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      handled();
      this.choose(this.active);
    } else if (event.key === 'Escape') {
      handled();
      this.close();
    }
  }

  /** Takes the `#query` out of the message and attaches the suggestion (or opens the full picker). */
  private choose(index: number): void {
    const { input } = this.options;
    const start = this.start;
    const seq = this.seq;
    this.close();
    if (start === undefined) return;
    const caret = input.selectionStart ?? start + 1;
    input.value = input.value.slice(0, start) + input.value.slice(caret);
    input.setSelectionRange(start, start);
    input.dispatchEvent(new Event('input'));
    if (index >= this.items.length) this.options.browse();
    else this.options.post({ type: 'attachSuggestion', seq, index, used: this.options.used() });
  }

  private render(): void {
    this.element.replaceChildren();
    const rows = [...this.items.map((item) => ({ ...item })), { kind: 'file' as const, label: 'Browse files…', detail: 'every workspace file, searched by name' }];
    rows.forEach((item, index) => {
      const row = document.createElement('div');
      row.className = `hash-option kind-${item.kind}${index === this.items.length ? ' browse' : ''}`;
      row.id = `hash-option-${index}`;
      row.setAttribute('role', 'option');
      row.setAttribute('aria-selected', String(index === this.active));
      const label = document.createElement('span');
      label.className = 'hash-label';
      label.textContent = item.label;
      const detail = document.createElement('span');
      detail.className = 'hash-detail';
      detail.textContent = item.detail;
      row.append(svgIcon(ICONS[item.kind], 'hash-icon'), label, detail);
      row.title = `${item.label}${item.detail ? ` — ${item.detail}` : ''}`;
      // mousedown, not click: the input keeps its focus (its blur would close the list first).
      row.addEventListener('mousedown', (event) => {
        event.preventDefault();
        this.choose(index);
      });
      this.element.append(row);
    });
    this.element.hidden = false;
    this.options.input.setAttribute('aria-activedescendant', `hash-option-${this.active}`);
    this.element.querySelector(`#hash-option-${this.active}`)?.scrollIntoView({ block: 'nearest' });
  }
}
