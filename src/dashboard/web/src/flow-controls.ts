/**
 * Where a drawing's first screen starts so React Flow's zoom controls do not cover it. On the dashboard they sit at
 * the bottom left; in a narrow MCP Apps frame (views/view.css) they are one small row at the top right, and the
 * drawing is placed below them.
 */

/** The top margin a drawing's first placement keeps in `canvas`: `margin`, or below the controls at its top. */
export function topMargin(canvas: HTMLElement | null | undefined, margin: number): number {
  const controls = canvas?.querySelector('.react-flow__controls');
  if (!canvas || !controls) return margin;
  const c = controls.getBoundingClientRect();
  const top = c.top - canvas.getBoundingClientRect().top;
  // Controls in the lower half leave the top free.
  if (c.height === 0 || top > canvas.clientHeight / 2) return margin;
  return Math.max(margin, Math.ceil(top + c.height + margin / 2));
}
