/** Folding the editor's side panels (the palette, the node and runs panel) to a strip and back. */

/** The button that folds a side panel away. */
export function Fold({ side, label, onClick }: { side: "left" | "right"; label: string; onClick: () => void }) {
  return (
    <button className={`cf-fold cf-fold-${side}`} data-action={`fold-${side}`} aria-label={label} title={label} onClick={onClick}>
      {side === "left" ? "«" : "»"}
    </button>
  );
}

/** A folded side panel: a narrow strip that opens it again. */
export function Folded({ side, label, title, onClick }: { side: "left" | "right"; label: string; title: string; onClick: () => void }) {
  return (
    <button className={`cf-folded cf-folded-${side}`} data-action={`unfold-${side}`} aria-label={title} title={title} onClick={onClick}>
      <span>{side === "left" ? "»" : "«"}</span>
      <span className="cf-folded-label">{label}</span>
    </button>
  );
}
