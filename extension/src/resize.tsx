/** The side panel's width: dragged by its left edge (or the arrow keys on it), remembered across editors and sessions. */
import { useCallback, useRef, useState } from "react";
import { trans } from "./i18n";

const KEY = "citeflow:side-width";
export const SIDE_MIN = 300;
const SIDE_DEFAULT = 380;
/** At most this share of the editor's width, so the canvas keeps some room. */
const SIDE_MAX_SHARE = 0.75;

const remembered = () => {
  const w = Number(globalThis.localStorage?.getItem(KEY));
  return Number.isFinite(w) && w >= SIDE_MIN ? w : SIDE_DEFAULT;
};

/** The width and the edge that changes it; `within()` is the element whose width bounds it (the editor's body). */
export function useSideWidth(within: () => HTMLElement | null) {
  const [width, setWidth] = useState(remembered);
  const set = useCallback(
    (w: number) => {
      const max = Math.max(SIDE_MIN, (within()?.clientWidth ?? Infinity) * SIDE_MAX_SHARE);
      const next = Math.round(Math.min(max, Math.max(SIDE_MIN, w)));
      setWidth(next);
      globalThis.localStorage?.setItem(KEY, String(next));
    },
    [within],
  );
  const drag = useRef<{ x: number; width: number } | undefined>(undefined);
  const edge = (
    <div
      className="cf-side-resize"
      role="separator"
      aria-orientation="vertical"
      aria-label={trans.__("Resize the side panel")}
      aria-valuenow={width}
      aria-valuemin={SIDE_MIN}
      tabIndex={0}
      title={trans.__("Drag to resize; double-click for the default width")}
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        drag.current = { x: e.clientX, width };
      }}
      onPointerMove={(e) => drag.current && set(drag.current.width + drag.current.x - e.clientX)}
      onPointerUp={() => (drag.current = undefined)}
      onDoubleClick={() => set(SIDE_DEFAULT)}
      onKeyDown={(e) => {
        if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
          e.preventDefault();
          set(width + (e.key === "ArrowLeft" ? 20 : -20));
        }
      }}
    />
  );
  return { width, edge };
}
