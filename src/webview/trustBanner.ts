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
    const names = shortNames(message.ignoredSettings);
    this.text.textContent = `Restricted mode: this workspace's ${names.length ? names.join(', ') : 'Toolbelt'} settings are ignored, and write tools are off.`;
    this.element.title = message.ignoredSettings.length ? `Ignored until you trust this folder: ${message.ignoredSettings.join(', ')}` : '';
  }
}

/** `toolbelt.sandbox.mode, toolbelt.sandbox.network, …` reads as `sandbox.*`: three or more of one group fold into one name. */
function shortNames(keys: readonly string[]): string[] {
  const names = keys.map((key) => key.replace(/^toolbelt\./, ''));
  const groupOf = (name: string) => (name.includes('.') ? name.slice(0, name.indexOf('.')) : undefined);
  const counts = new Map<string, number>();
  for (const name of names) {
    const group = groupOf(name);
    if (group) counts.set(group, (counts.get(group) ?? 0) + 1);
  }
  const shown = names.map((name) => {
    const group = groupOf(name);
    return group && (counts.get(group) ?? 0) >= 3 ? `${group}.*` : name;
  });
  return [...new Set(shown)];
}
