import type { TurnActions, WebviewMessage } from '../protocol';
import './turnActions.css';
import { button, el, type TranscriptView } from './transcript';

type Post = (message: WebviewMessage) => void;
const TURN_BUTTONS = ['turn-edit', 'turn-regenerate', 'turn-continue'] as const;
type TurnButton = (typeof TURN_BUTTONS)[number];

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

  /**
   * Puts the buttons on the items that have them now (an updated item is a new element). A button
   * already in the right place stays, so a click is never lost to a message that re-renders nothing.
   */
  apply(): void {
    const wanted = new Map<TurnButton, string>();
    const { edit, regenerate } = this.actions;
    if (!this.busy) {
      if (edit && edit !== this.editing?.id) wanted.set('turn-edit', edit);
      if (regenerate) wanted.set('turn-regenerate', regenerate);
      if (this.actions.continue) wanted.set('turn-continue', this.actions.continue);
    }
    for (const control of this.container.querySelectorAll<HTMLElement>('.turn-actions > button')) {
      const kind = TURN_BUTTONS.find((k) => control.classList.contains(k));
      const itemId = kind && wanted.get(kind);
      if (kind && itemId && this.transcript.elementFor(itemId)?.contains(control)) wanted.delete(kind);
      else control.remove();
    }
    for (const bar of this.container.querySelectorAll('.turn-actions:empty')) bar.remove();
    for (const [kind, itemId] of wanted) this.attach(itemId, this.control(kind));
  }

  private control(kind: TurnButton): HTMLButtonElement {
    switch (kind) {
      case 'turn-edit': {
        const control = button('Edit', 'link-button turn-edit', () => this.actions.edit && this.startEdit(this.actions.edit));
        control.title = 'Change this message and send it again; the answer to it is replaced';
        return control;
      }
      case 'turn-regenerate': {
        const control = button('Regenerate', 'link-button turn-regenerate', () => this.post({ type: 'regenerate' }));
        control.title = 'Ask for this answer again; the model does not see the current one';
        return control;
      }
      case 'turn-continue': {
        const control = button('Continue', 'secondary turn-continue', () => this.post({ type: 'continue' }));
        control.title = 'Ask the model to go on from where it stopped, keeping what it wrote';
        return control;
      }
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
