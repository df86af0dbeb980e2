import type { WebviewMessage } from '../protocol';
import './codeBlocks.css';
import { resolveLanguage } from '../common/languages';
import { pathLabel } from './pathLabel';

/** The messages a code block's buttons send. */
export type CodeBlockMessage = Extract<WebviewMessage, { type: 'insertCode' | 'applyCode' | 'newFile' }>;

export interface CodeBlockActions {
  copy(text: string): void;
  code(message: CodeBlockMessage): void;
}

/**
 * Gives every code block of a rendered answer its one-line header: the language, the file it
 * names (cut in the middle when narrow, the name kept), and Copy, Apply, Insert at Cursor and New
 * File. Where the panel is narrow, Insert and New File move into a "⋯" menu (a container query in
 * codeBlocks.css). The header sits above the code, so no button ever covers it. A block still
 * streaming (its fence not closed yet) offers Copy only.
 */
export function decorateCodeBlocks(body: HTMLElement, actions: CodeBlockActions): void {
  for (const block of body.querySelectorAll<HTMLElement>('div.code-block')) {
    const code = block.querySelector('pre')?.textContent ?? '';
    const language = resolveLanguage(block.dataset.lang);
    const path = block.dataset.path;
    const header = element('div', 'code-header');
    const label = element('span', 'code-language');
    label.textContent = block.dataset.label || 'text';
    header.append(label);
    if (path) {
      label.classList.add('with-path');
      header.append(pathLabel(path, 'code-path'));
    }
    const buttons = element('div', 'code-actions');
    buttons.setAttribute('role', 'toolbar');
    buttons.setAttribute('aria-label', `${label.textContent} code`);
    buttons.append(action('Copy', 'Copy code', 'copy-button', () => actions.copy(code)));
    if (block.dataset.open !== 'true') {
      const insert = () => actions.code({ type: 'insertCode', code });
      const newFile = () => actions.code({ type: 'newFile', code, ...(language ? { language: language.id } : {}) });
      buttons.append(
        action('Apply', path ? `Apply to File: merge this code into ${path} (you see the change before anything is written)` : 'Apply to File: merge this code into the active file or one you name (you see the change before anything is written)', 'apply-code', () =>
          actions.code({ type: 'applyCode', code, ...(path ? { path } : {}), ...(language ? { language: language.id } : {}) }),
        ),
        action('Insert', 'Insert at Cursor: put this code at the cursor of the active editor', 'insert-code wide-only', insert),
        action('New File', 'New File: open this code in a new untitled editor', 'new-file wide-only', newFile),
        moreMenu([
          ['Insert at Cursor', 'menu-insert-code', insert],
          ['New File', 'menu-new-file', newFile],
        ]),
      );
    }
    header.append(buttons);
    block.prepend(header);
  }
}

/** "⋯": the actions that do not fit, as a small menu under the header. */
function moreMenu(entries: [string, string, () => void][]): HTMLElement {
  const wrapper = element('span', 'code-more narrow-only');
  const menu = element('div', 'code-menu');
  menu.setAttribute('role', 'menu');
  menu.hidden = true;
  const toggle = action('⋯', 'More actions: Insert at Cursor, New File', 'code-more-button', () => setOpen(menu.hidden));
  toggle.setAttribute('aria-haspopup', 'menu');
  toggle.setAttribute('aria-expanded', 'false');
  const close = (event: Event) => {
    if (!wrapper.contains(event.target as Node)) setOpen(false);
  };
  const setOpen = (open: boolean) => {
    menu.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    if (open) {
      document.addEventListener('click', close, true);
      menu.querySelector<HTMLElement>('button')?.focus();
    } else document.removeEventListener('click', close, true);
  };
  for (const [text, className, run] of entries) {
    const item = action(text, text, `code-menu-item ${className}`, () => {
      setOpen(false);
      run();
    });
    item.setAttribute('role', 'menuitem');
    menu.append(item);
  }
  menu.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    setOpen(false);
    toggle.focus();
  });
  wrapper.append(toggle, menu);
  return wrapper;
}

function action(text: string, description: string, className: string, onClick: () => void): HTMLButtonElement {
  const button = element('button', `code-action ${className}`);
  button.type = 'button';
  button.textContent = text;
  button.title = description;
  button.setAttribute('aria-label', description);
  button.addEventListener('click', (event) => {
    event.stopPropagation();
    onClick();
  });
  return button;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string): HTMLElementTagNameMap[K] {
  const created = document.createElement(tag);
  created.className = className;
  return created;
}
