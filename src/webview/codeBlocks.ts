import type { WebviewMessage } from '../protocol';
import './codeBlocks.css';
import { resolveLanguage } from './languages';

/** The messages a code block's buttons send. */
export type CodeBlockMessage = Extract<WebviewMessage, { type: 'insertCode' | 'applyCode' | 'newFile' }>;

export interface CodeBlockActions {
  copy(text: string): void;
  code(message: CodeBlockMessage): void;
}

/**
 * Gives every code block of a rendered answer its header: the language, the file it names, and
 * Copy, Insert at Cursor, Apply to File and New File. The header sits above the code, so no
 * button ever covers it. A block still streaming (its fence not closed yet) offers Copy only.
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
      const file = element('span', 'code-path');
      file.textContent = path;
      file.title = path;
      header.append(file);
    }
    const buttons = element('div', 'code-actions');
    buttons.setAttribute('role', 'toolbar');
    buttons.setAttribute('aria-label', `${label.textContent} code`);
    buttons.append(action('Copy', 'Copy code', 'copy-button', () => actions.copy(code)));
    if (block.dataset.open !== 'true') {
      buttons.append(
        action('Insert', 'Insert at Cursor: put this code at the cursor of the active editor', 'insert-code', () =>
          actions.code({ type: 'insertCode', code }),
        ),
        action('Apply', path ? `Apply to File: write this code to ${path}` : 'Apply to File: write this code to a file you name', 'apply-code', () =>
          actions.code({ type: 'applyCode', code, ...(path ? { path } : {}), ...(language ? { language: language.id } : {}) }),
        ),
        action('New File', 'New File: open this code in a new untitled editor', 'new-file', () =>
          actions.code({ type: 'newFile', code, ...(language ? { language: language.id } : {}) }),
        ),
      );
    }
    header.append(buttons);
    block.prepend(header);
  }
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
