/** A 16×16 single-path icon, hidden from screen readers (the control around it carries the name). */
export function svgIcon(d: string, className?: string): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  if (className) svg.setAttribute('class', className);
  svg.setAttribute('aria-hidden', 'true');
  const shape = document.createElementNS(ns, 'path');
  shape.setAttribute('d', d);
  svg.append(shape);
  return svg;
}
