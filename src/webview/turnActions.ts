import type { TurnActions, WebviewMessage } from '../protocol';
import './turnActions.css';
import { button, el, type TranscriptView } from './transcript';

type Post = (message: WebviewMessage) => void;

/**
 * The buttons on the last messages: Edit & resend on the last thing the person wrote,
 * Regenerate on the last answer, Continue on a stopped one. The host says which items get
 * them; none show while a reply is being written. Edit opens an editor in the message itself.
 */
export class TurnActionsView {
  private actions: TurnActions = {};
  private busy = false;
  private editing: { id: string; restore: () => void } | undefined;
  private sendCounter = 0;

  constructor(
    private readonly transcript: TranscriptView,
    private readonly container: HTMLElement,
    private readonly post: Post,
  ) {}

  /** After the transcript was rebuilt from a new state. */
  reset(actions: TurnActions | undefined): void {
    this.editing = undefined;
    this.set(actions ?? {});
  }

  set(actions: TurnActions): void {
    this.actions = actions;
    this.apply();
  }

  setBusy(busy: boolean): void {
    this.busy = busy;
    if (busy) this.editing?.restore();
    this.apply();
  }

  /** Puts the buttons on the items that have them now (an updated item is a new element). */
  apply(): void {
    for (const bar of this.container.querySelectorAll('.turn-actions')) bar.remove();
    if (this.busy) return;
    const { edit, regenerate } = this.actions;
    if (edit && edit !== this.editing?.id) {
      const editButton = button('Edit', 'link-button turn-edit', () => this.startEdit(edit));
      editButton.title = 'Change this message and send it again; the answer to it is replaced';
      this.attach(edit, editButton);
    }
    if (regenerate) {
      const again = button('Regenerate', 'link-button turn-regenerate', () => this.post({ type: 'regenerate' }));
      again.title = 'Ask for this answer again; the model does not see the current one';
      this.attach(regenerate, again);
    }
    if (this.actions.continue) {
      const go = button('Continue', 'secondary turn-continue', () => this.post({ type: 'continue' }));
      go.title = 'Ask the model to go on from where it stopped, keeping what it wrote';
      this.attach(this.actions.continue, go);
    }
  }

  private attach(itemId: string, control: HTMLButtonElement): void {
    const element = this.transcript.elementFor(itemId);
    if (!element) return;
    let bar = element.querySelector<HTMLElement>(':scope > .turn-actions');
    if (!bar) {
      bar = el('div', 'turn-actions');
      bar.setAttribute('role', 'group');
      bar.setAttribute('aria-label', 'Message actions');
      element.append(bar);
    }
    bar.append(control);
  }

  /** The message turns into an editor: Enter (or Send) sends it in place of the last turn, Escape (or Cancel) keeps it. */
  private startEdit(itemId: string): void {
    const element = this.transcript.elementFor(itemId);
    const body = element?.querySelector<HTMLElement>(':scope > .body');
    if (!element || !body) return;
    this.editing?.restore();
    const editor = el('div', 'turn-editor');
    const text = el('textarea', 'turn-editor-input');
    text.value = body.textContent ?? '';
    text.rows = Math.min(10, Math.max(2, text.value.split('\n').length));
    text.setAttribute('aria-label', 'Edit your message. Enter sends it again, Shift+Enter adds a line, Escape cancels.');
    const restore = () => {
      editor.replaceWith(body);
      this.editing = undefined;
      this.apply();
    };
    const send = () => {
      if (!text.value.trim()) return;
      this.post({ type: 'editLast', id: `edit-${++this.sendCounter}`, text: text.value });
    };
    text.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        send();
      } else if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        restore();
        element.querySelector<HTMLElement>('.turn-edit')?.focus();
      }
    });
    const buttons = el('div', 'turn-editor-buttons');
    buttons.append(button('Send', 'primary turn-editor-send', send), button('Cancel', 'secondary turn-editor-cancel', restore));
    editor.append(text, buttons);
    body.replaceWith(editor);
    this.editing = { id: itemId, restore };
    this.apply();
    text.focus();
    text.setSelectionRange(text.value.length, text.value.length);
  }
}
