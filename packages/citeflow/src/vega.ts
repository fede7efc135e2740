import type { Passage } from "@citeflow/core";
import type { MimeBundle } from "./display.js";

export const VEGA_LITE_MIME = "application/vnd.vegalite.v5+json";

/**
 * Score distributions of a passage list as a Vega-Lite histogram (JupyterLab draws it natively):
 * one panel per score name, or just the named scores.
 */
export function scoreChart(passages: Passage[], scores?: string[]): Chart {
  const names = scores ?? [...new Set(passages.flatMap((p) => Object.keys(p.scores)))];
  const values = passages.flatMap((p) => names.filter((s) => p.scores[s] !== undefined).map((s) => ({ passage: p.id, score: s, value: p.scores[s]! })));
  const spec = {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    description: `Score distributions of ${passages.length} passages`,
    data: { values },
    columns: Math.min(3, Math.max(1, names.length)),
    // One chart a score, each binned and scaled on its own values: a facet bins over every score
    // at once, which put all of a 0–1 score into one bar of a 0–30 BM25 axis.
    concat: names.map((s) => ({
      title: s,
      width: 180,
      height: 110,
      transform: [{ filter: { field: "score", equal: s } }],
      mark: "bar",
      encoding: {
        x: { field: "value", type: "quantitative", bin: { maxbins: 20 }, title: "score" },
        y: { aggregate: "count", type: "quantitative", title: "passages" },
      },
    })),
  };
  const text = names
    .map((s) => {
      const v = values
        .filter((x) => x.score === s)
        .map((x) => x.value)
        .sort((a, b) => a - b);
      return v.length ? `${s}: n=${v.length} min=${v[0]!.toFixed(3)} median=${v[Math.floor(v.length / 2)]!.toFixed(3)} max=${v[v.length - 1]!.toFixed(3)}` : `${s}: no values`;
    })
    .join("\n");
  return new Chart(spec, text);
}

/** A Vega-Lite chart: shown by `display(chart)` or as a cell's last value. */
export class Chart {
  constructor(
    readonly spec: Record<string, unknown>,
    readonly summary: string,
  ) {}

  bundle(): MimeBundle {
    return { [VEGA_LITE_MIME]: this.spec, "text/plain": this.summary };
  }

  [Symbol.for("citeflow.bundle")](): MimeBundle {
    return this.bundle();
  }
}
