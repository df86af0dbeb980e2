import './scrollToBottom.css';

/** Further from the end than this (px), the transcript no longer follows new text: the button shows. */
export const FOLLOW_DISTANCE = 80;

/**
 * A round "↓" button over the end of the transcript while the person has scrolled up (during
 * a reply or after it); a click brings the end into view. `content` is watched for growth, so the
 * button appears when a reply streams in below what the person is reading.
 */
export function attachScrollToBottom(scroller: HTMLElement, content: HTMLElement): HTMLButtonElement {
  const bar = document.createElement('div');
  bar.className = 'scroll-to-bottom-bar';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'scroll-to-bottom';
  button.title = 'Scroll to the latest message';
  button.setAttribute('aria-label', 'Scroll to the latest message');
  button.append(arrowDown());
  button.hidden = true;
  bar.append(button);
  scroller.append(bar);

  const update = () => {
    button.hidden = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight <= FOLLOW_DISTANCE;
  };
  button.addEventListener('click', () => {
    scroller.scrollTop = scroller.scrollHeight;
    update();
  });
  scroller.addEventListener('scroll', update, { passive: true });
  new ResizeObserver(update).observe(content);
  new ResizeObserver(update).observe(scroller);
  return button;
}

function arrowDown(): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', 'M8 2.5v11M3.5 9 8 13.5 12.5 9');
  svg.append(path);
  return svg;
}
