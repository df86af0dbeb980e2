import type { Attachment, AttachmentChip, HostMessage, WebviewMessage } from '../protocol';
import './attachments.css';
import { svgIcon } from './svgIcon';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  element.className = className;
  return element;
}

/** "app.ts:3-7" for a selection, "app.ts" for a file. */
export function chipLabel(chip: AttachmentChip): string {
  const name = chip.path.split('/').pop() || chip.path;
  return chip.range ? `${name}:${chip.range.start}-${chip.range.end}` : name;
}

/** What the chip says to a screen reader and in its tooltip: the whole path, the lines, any cut. */
function chipDescription(chip: AttachmentChip): string {
  const where = chip.range ? `${chip.path}, lines ${chip.range.start}-${chip.range.end}` : chip.path;
  return chip.notice ? `${where}. ${chip.notice}` : where;
}

const keyOf = (chip: AttachmentChip) => `${chip.kind}:${chip.path}:${chip.range?.start ?? ''}-${chip.range?.end ?? ''}`;

function chipBody(chip: AttachmentChip): Element[] {
  const icon = svgIcon(chip.kind === 'selection' ? SELECTION : FILE, `chip-icon chip-${chip.kind}`);
  const label = el('span', 'chip-label');
  label.textContent = chipLabel(chip);
  const parts: Element[] = [icon, label];
  if (chip.notice) {
    const cut = el('span', 'chip-truncated');
    cut.textContent = 'truncated';
    parts.push(cut);
  }
  return parts;
}

/** The chips of a sent message; a click opens the file at its lines. */
export function sentChips(chips: readonly AttachmentChip[], open: (href: string) => void): HTMLElement {
  const row = el('div', 'context-chips sent');
  row.setAttribute('aria-label', 'Attached context');
  for (const chip of chips) {
    const item = el('button', `context-chip${chip.notice ? ' truncated' : ''}`);
    item.type = 'button';
    item.title = `${chipDescription(chip)} (open)`;
    item.setAttribute('aria-label', `Attached: ${chipDescription(chip)}. Open it`);
    item.append(...chipBody(chip));
    item.addEventListener('click', () => open(`${chip.path.split('/').map(encodeURIComponent).join('/')}${chip.range ? `#L${chip.range.start}` : ''}`));
    row.append(item);
  }
  return row;
}

// Stroked 16×16 outlines in the text colour: the panel has no icon font.
const PAPERCLIP = 'M10.5 4.5 5.8 9.2a1.3 1.3 0 0 0 1.8 1.8l4.9-4.9a2.6 2.6 0 0 0-3.7-3.7L3.9 7.3a3.9 3.9 0 0 0 5.5 5.5l4.1-4.1';
const FILE = 'M4 1.5h5l3 3v10H4zM9 1.5v3h3';
const SELECTION = 'M2.5 4h11M2.5 8h11M2.5 12h7';

export interface ComposerAttachmentOptions {
  post(message: WebviewMessage): void;
  input: HTMLTextAreaElement;
  /** Shows why something was not attached. */
  say(text: string): void;
  /** `#` typed at the start of a word (at this index): the inline list handles it. */
  hash?(at: number): void;
  /** The attachments changed (to keep them with the draft). */
  changed(): void;
}

/**
 * The composer's attached context: an "Add context" button asks the host's picker (`#` typed at
 * the start of a word opens the inline list of hashSuggestions.ts, or the picker without one), the answers show as chips, removable by their × or with
 * Backspace/Delete on a focused chip; Backspace at the start of the message steps onto the last.
 */
export class ComposerAttachments {
  readonly element = el('div', 'context-chips composer-chips');
  private readonly list: Attachment[] = [];
  private readonly addButton: HTMLButtonElement;
  /** Where the `#` that opened the picker was typed; it is removed when something is attached. */
  private hashAt: number | undefined;
  private picking = false;

  constructor(private readonly options: ComposerAttachmentOptions) {
    this.element.setAttribute('aria-label', 'Context attached to the message');
    this.addButton = el('button', 'add-context');
    this.addButton.type = 'button';
    this.addButton.title = 'Add context: the selection, a file or an open editor (type # in the message)';
    this.addButton.setAttribute('aria-label', 'Add context (#)');
    this.addButton.append(svgIcon(PAPERCLIP, 'add-context-icon'), document.createTextNode('Add context'));
    this.addButton.addEventListener('click', () => this.pick());
    this.element.append(this.addButton);
    options.input.addEventListener('input', (event) => this.onInput(event as InputEvent));
    options.input.addEventListener('keydown', (event) => this.onInputKey(event));
  }

  get items(): Attachment[] {
    return [...this.list];
  }

  usedChars(): number {
    return this.list.reduce((sum, a) => sum + a.content.length, 0);
  }

  /** Asks the host's picker for one more attachment. */
  pick(): void {
    if (this.picking) return;
    this.picking = true;
    this.addButton.setAttribute('aria-busy', 'true');
    this.options.post({ type: 'pickContext', used: this.usedChars() });
  }

  receive(message: Extract<HostMessage, { type: 'attachments' }>): void {
    this.picking = false;
    this.addButton.removeAttribute('aria-busy');
    const { input } = this.options;
    if (message.attachments.length && this.hashAt !== undefined && input.value[this.hashAt] === '#') {
      input.value = input.value.slice(0, this.hashAt) + input.value.slice(this.hashAt + 1);
      input.setSelectionRange(this.hashAt, this.hashAt);
    }
    this.hashAt = undefined;
    if (message.problem) this.options.say(message.problem);
    this.add(message.attachments);
    input.focus();
  }

  /** Adds attachments (one already attached is replaced by the new reading). */
  add(attachments: readonly Attachment[]): void {
    for (const attachment of attachments) {
      const index = this.list.findIndex((a) => keyOf(a) === keyOf(attachment));
      if (index === -1) this.list.push(attachment);
      else this.list[index] = attachment;
    }
    this.render();
    if (attachments.length) this.options.changed();
  }

  /** Empties the composer's attachments (after a send), returning what they were. */
  take(): Attachment[] {
    const taken = this.list.splice(0);
    this.render();
    this.options.changed();
    return taken;
  }

  private remove(index: number): void {
    this.list.splice(index, 1);
    this.render();
    this.options.changed();
    const chips = this.element.querySelectorAll<HTMLElement>('.context-chip');
    (chips[Math.min(index, chips.length - 1)] ?? this.options.input).focus();
  }

  private render(): void {
    for (const chip of this.element.querySelectorAll('.context-chip')) chip.remove();
    this.list.forEach((attachment, index) => {
      const chip = el('span', `context-chip${attachment.notice ? ' truncated' : ''}`);
      chip.tabIndex = 0;
      chip.title = chipDescription(attachment);
      chip.setAttribute('role', 'group');
      chip.setAttribute('aria-label', `Attached: ${chipDescription(attachment)}. Backspace or Delete removes it`);
      const remove = el('button', 'chip-remove');
      remove.type = 'button';
      remove.tabIndex = -1;
      remove.textContent = '×';
      remove.title = 'Remove';
      remove.setAttribute('aria-label', `Remove ${chipLabel(attachment)}`);
      remove.addEventListener('click', () => this.remove(index));
      chip.append(...chipBody(attachment), remove);
      chip.addEventListener('keydown', (event) => {
        if (event.key === 'Backspace' || event.key === 'Delete') {
          event.preventDefault();
          this.remove(index);
        } else if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
          event.preventDefault();
          const chips = [...this.element.querySelectorAll<HTMLElement>('.context-chip')];
          (chips[index + (event.key === 'ArrowRight' ? 1 : -1)] ?? this.options.input).focus();
        }
      });
      this.element.append(chip);
    });
    this.element.classList.toggle('has-chips', this.list.length > 0);
  }

  /** `#` typed at the start of the message or after a space opens the picker. */
  private onInput(event: InputEvent): void {
    const { input } = this.options;
    const at = (input.selectionStart ?? 0) - 1;
    if (event.inputType !== 'insertText' || event.data !== '#' || input.value[at] !== '#') return;
    if (at > 0 && !/\s/.test(input.value[at - 1])) return;
    if (this.options.hash) return this.options.hash(at);
    this.hashAt = at;
    this.pick();
  }

  private onInputKey(event: KeyboardEvent): void {
    const { input } = this.options;
    if (event.key !== 'Backspace' || this.list.length === 0 || input.selectionStart !== 0 || input.selectionEnd !== 0) return;
    event.preventDefault();
    [...this.element.querySelectorAll<HTMLElement>('.context-chip')].pop()?.focus();
  }
}

/** A sent user message with its chips between the author and the text. */
export function withChips(message: HTMLElement, chips: readonly AttachmentChip[] | undefined, open: (href: string) => void): HTMLElement {
  if (chips?.length) message.querySelector('.author')?.after(sentChips(chips, open));
  return message;
}
