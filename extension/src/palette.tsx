/** The node palette: the kernel's catalogue, searchable by name or family; drag a node onto the canvas. */
import type { CatalogueNode } from "@citeflow/core/browser";
import { memo, useMemo, useState } from "react";
import { DRAG_MIME } from "./canvas";
import { trans } from "./i18n";

export const Palette = memo(function Palette({ nodes, onAdd }: { nodes: CatalogueNode[]; onAdd: (spec: CatalogueNode) => void }) {
  const [q, setQ] = useState("");
  const groups = useMemo(() => {
    const needle = q.trim().toLowerCase();
    const hit = (n: CatalogueNode) => !needle || [n.type, n.title, n.family, n.description].some((s) => s?.toLowerCase().includes(needle));
    const out = new Map<string, CatalogueNode[]>();
    for (const n of nodes.filter(hit)) out.set(n.family, [...(out.get(n.family) ?? []), n]);
    return [...out.entries()];
  }, [nodes, q]);
  return (
    <div className="cf-palette">
      <input className="cf-search" type="search" placeholder={trans.__("Search nodes")} aria-label={trans.__("Search nodes")} value={q} onChange={(e) => setQ(e.target.value)} />
      {groups.map(([family, list]) => (
        <section key={family}>
          <h4>{family}</h4>
          {list.map((n) => (
            <div
              key={n.type}
              className="cf-palette-item"
              data-type={n.type}
              draggable
              tabIndex={0}
              title={`${n.description ?? ""}\n${trans.__("Drag onto the canvas, or press Enter to add")}`}
              onDragStart={(e) => {
                e.dataTransfer.setData(DRAG_MIME, n.type);
                e.dataTransfer.effectAllowed = "copy";
              }}
              onDoubleClick={() => onAdd(n)}
              onKeyDown={(e) => e.key === "Enter" && onAdd(n)}
            >
              <span className="cf-palette-title">{n.title}</span> <span className="cf-node-type">{n.type}</span>
            </div>
          ))}
        </section>
      ))}
    </div>
  );
});
