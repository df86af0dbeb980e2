import './scrollToBottom.css';
import { svgIcon } from './svgIcon';

/** Further from the end than this (px), the transcript no longer follows new text: the button shows. */
export const FOLLOW_DISTANCE = 80;

/**
 * Keeps the newest content in view and offers a way back to it:
 * - while the person is at the end, whatever grows the transcript (streamed text, a highlighted
 *   block, Regenerate and Edit added after a reply, an image) keeps the end in view;
 * - once they scroll up, a "Jump to latest" bar appears between the transcript and the input. It
 *   takes its own row, so it never covers text, and a click brings the end into view.
 * Returns the bar, for the panel to place right under the transcript.
 */
export function attachScrollToBottom(scroller: HTMLElement, content: HTMLElement): HTMLElement {
  const bar = document.createElement('div');
  bar.className = 'scroll-to-bottom-bar';
  bar.hidden = true;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'scroll-to-bottom';
  button.title = 'Scroll to the latest message';
  button.setAttribute('aria-label', 'Scroll to the latest message');
  const label = document.createElement('span');
  label.textContent = 'Jump to latest';
  button.append(svgIcon('M8 2.5v11M3.5 9 8 13.5 12.5 9'), label);
  bar.append(button);

  let following = true;
  const distance = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight;
  const update = () => {
    bar.hidden = following || distance() <= FOLLOW_DISTANCE;
  };
  const toEnd = () => {
    scroller.scrollTop = scroller.scrollHeight;
  };
  button.addEventListener('click', () => {
    following = true;
    toEnd();
    update();
  });
  // Only the person's scrolling decides whether to follow; growth of the content never does.
  scroller.addEventListener('scroll', () => {
    following = distance() <= FOLLOW_DISTANCE;
    update();
  }, { passive: true });
  const grew = () => {
    if (following) toEnd();
    update();
  };
  new ResizeObserver(grew).observe(content);
  new ResizeObserver(grew).observe(scroller);
  return bar;
}
