import type { HostMessage } from '../protocol';
import './trustBanner.css';

type TrustMessage = Extract<HostMessage, { type: 'trust' }>;

/**
 * Restricted mode in one line: which workspace settings VS Code ignores until the folder is
 * trusted (so the chat may use the user-level model instead), and a Trust button.
 */
export class TrustBanner {
  readonly element: HTMLElement;
  private readonly text: HTMLElement;

  constructor(trust: () => void) {
    this.element = document.createElement('div');
    this.element.className = 'trust-banner';
    this.element.setAttribute('role', 'status');
    this.element.hidden = true;
    this.text = document.createElement('span');
    this.text.className = 'trust-text';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary trust-button';
    button.textContent = 'Trust…';
    button.title = 'Open Workspace Trust (Manage Workspace Trust)';
    button.addEventListener('click', trust);
    this.element.append(this.text, button);
  }

  update(message: TrustMessage): void {
    this.element.hidden = message.trusted;
    if (message.trusted) return;
    const names = message.ignoredSettings.map((key) => key.replace(/^toolbelt\./, ''));
    this.text.textContent = `Restricted mode: this workspace's ${names.length ? names.join(', ') : 'Toolbelt'} settings are ignored, and write tools are off.`;
    this.element.title = message.ignoredSettings.length ? `Ignored until you trust this folder: ${message.ignoredSettings.join(', ')}` : '';
  }
}
