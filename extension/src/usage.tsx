/** A node's language-model calls as a table: which model, where, and the usage of each call; a model's load (its first use in a session) is a row with its time. */
import type { ModelCall } from "@citeflow/core/browser";
import { trans } from "./i18n";

const n = (v: number | undefined) => (v === undefined ? "" : String(v));

export function ModelCalls({ calls }: { calls: ModelCall[] }) {
  return (
    <table className="cf-table" data-view="model-calls">
      <thead>
        <tr>
          <th>{trans.__("call")}</th>
          <th>{trans.__("model")}</th>
          <th>{trans.__("where")}</th>
          <th>{trans.__("load")}</th>
          <th>{trans.__("prompt tokens")}</th>
          <th>{trans.__("answer tokens")}</th>
          <th>{trans.__("first token")}</th>
          <th>{trans.__("tokens/s")}</th>
        </tr>
      </thead>
      <tbody>
        {calls.map((c, i) => (
          <tr key={i}>
            <td>{c.span}</td>
            <td className="cf-mono">{c.model}</td>
            <td>{c.where}</td>
            <td className="cf-num">{c.loadMs !== undefined ? `${(c.loadMs / 1000).toFixed(1)} s` : ""}</td>
            <td className="cf-num">{n(c.promptTokens)}</td>
            <td className="cf-num">{n(c.completionTokens)}</td>
            <td className="cf-num">{c.timeToFirstTokenMs !== undefined ? `${c.timeToFirstTokenMs} ms` : ""}</td>
            <td className="cf-num">{n(c.tokensPerSecond)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
