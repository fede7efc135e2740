/**
 * Scrolls an element into view inside its nearest scrolling ancestor only, and returns nothing.
 * `scrollIntoView` also scrolls every scrollable ancestor (JupyterLab's shell panels included),
 * and in current Chromium (156 here) it returns a Promise: written as an effect's body or a ref
 * callback, React takes that for a cleanup function and throws "is not a function" on unmount,
 * which took the editor's whole React tree down.
 */
export function reveal(el: HTMLElement | null, block: "start" | "nearest" = "nearest"): void {
  let box = el?.parentElement;
  while (el && box && !/^(auto|scroll)$/.test(getComputedStyle(box).overflowY)) box = box.parentElement;
  if (!el || !box) return;
  const r = el.getBoundingClientRect();
  const b = box.getBoundingClientRect();
  if (block === "start" || r.top < b.top) box.scrollTop += r.top - b.top;
  else if (r.bottom > b.bottom) box.scrollTop += Math.min(r.bottom - b.bottom, r.top - b.top);
}
