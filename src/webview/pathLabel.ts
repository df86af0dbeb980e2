import './pathLabel.css';

/**
 * A file path that fits any width by cutting its middle: the folder part shrinks with an
 * ellipsis, the file name stays whole (`src/compo…/inventory.ts`). The full path is the title.
 */
export function pathLabel(path: string, className = ''): HTMLSpanElement {
  const label = document.createElement('span');
  label.className = `path-label ${className}`.trim();
  label.title = path;
  const cut = path.lastIndexOf('/') + 1;
  if (cut > 0) {
    const folder = document.createElement('span');
    folder.className = 'path-folder';
    folder.textContent = path.slice(0, cut);
    label.append(folder);
  }
  const name = document.createElement('span');
  name.className = 'path-name';
  name.textContent = path.slice(cut);
  label.append(name);
  return label;
}
