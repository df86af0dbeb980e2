import { button } from './transcript';

/** A few 16px outline icons, drawn in currentColor so they follow the theme. */
export const ICONS = {
  plus: '<svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><path d="M8 2v12M2 8h12" stroke="currentColor" stroke-width="1.3" fill="none"/></svg>',
  history:
    '<svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><path d="M2.5 8a5.5 5.5 0 1 0 1.6-3.9M2.5 2.5v2.8h2.8M8 5v3.3l2.2 1.4" stroke="currentColor" stroke-width="1.2" fill="none" stroke-linecap="round"/></svg>',
};

/** A button showing only an icon, named for screen readers and tooltips. */
export function iconButton(svg: string, label: string, onClick: () => void): HTMLButtonElement {
  const element = button('', 'header-button icon-button', onClick);
  element.innerHTML = svg;
  element.title = label;
  element.setAttribute('aria-label', label);
  return element;
}
