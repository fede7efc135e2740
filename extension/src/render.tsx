/**
 * The notebook renderer for `application/vnd.citeflow.run+json` (CITEFLOW_MIME): the editor's
 * inspectors in an output. The payload's types are the kernel's own, from `@citeflow/core`.
 */
import { CITEFLOW_MIME, type Answer, type CiteflowView, type Passage } from "@citeflow/core/browser";
import { ReactWidget } from "@jupyterlab/apputils";
import type { IRenderMime } from "@jupyterlab/rendermime-interfaces";
import { useState } from "react";
import { trans } from "./i18n";
import { AnswerView, PassagesView, ValueView, VerdictsView } from "./inspectors";

type Run = Extract<CiteflowView, { kind: "run" }>;

export type OpenInEditor = (bundle: Run) => Promise<void>;

/** The end of a text that is still growing, as much as a table cell or a node card shows. */
export const tail = (text: string, n = 160) => (text.length > n ? `…${text.slice(-n)}` : text);

function RunView({ bundle, onOpen }: { bundle: Run; onOpen: OpenInEditor | undefined }) {
  const [node, setNode] = useState<string>();
  const [error, setError] = useState<string>();
  const outputs = node ? bundle.outputs?.[node] : undefined;
  return (
    <div className="cf-run-view" data-run={bundle.runId} data-status={bundle.status}>
      <div className="cf-run-head">
        <b>{bundle.graph?.name}</b> <span className="cf-mono">{bundle.runId}</span> <span className={`cf-run-${bundle.status}`}>{bundle.status}</span>
        {bundle.ms !== undefined && ` ${Math.round(bundle.ms)} ms`}
        {bundle.question && <div className="cf-muted">{bundle.question}</div>}
        {onOpen && bundle.graph && (
          <button className="cf-button" onClick={() => onOpen(bundle).catch((e: Error) => setError(e.message))}>
            {trans.__("Open in pipeline editor")}
          </button>
        )}
        {error && <p className="cf-error">{error}</p>}
        {bundle.error && <pre className="cf-error">{bundle.error}</pre>}
      </div>
      <table className="cf-table">
        <thead>
          <tr>
            <th>{trans.__("node")}</th>
            <th>{trans.__("type")}</th>
            <th>{trans.__("status")}</th>
            <th>{trans.__("output")}</th>
            <th>{trans.__("model")}</th>
            <th>ms</th>
          </tr>
        </thead>
        <tbody>
          {bundle.nodes.map((n) => (
            <tr key={n.id} data-node={n.id} className={n.id === node ? "cf-focus" : undefined}>
              <td>
                <button className="cf-link cf-mono" disabled={!bundle.outputs?.[n.id]} onClick={() => setNode(n.id === node ? undefined : n.id)}>
                  {n.id}
                </button>
              </td>
              <td className="cf-node-type">{n.type}</td>
              <td>
                <span className={`cf-badge cf-badge-${n.cache === "hit" ? "cached" : n.status}`}>{n.cache === "hit" ? trans.__("cached") : n.status}</span>
                {n.error ? ` ${n.error}` : ""}
                {n.status === "running" && n.progress ? <div className="cf-progress-text">{tail(n.progress)}</div> : null}
                {n.warnings?.length ? <div className="cf-node-warnings">⚠ {n.warnings.join(" · ")}</div> : null}
              </td>
              <td className="cf-node-summary">{n.summary ?? ""}</td>
              <td className="cf-node-models">{n.models?.join(", ") ?? ""}</td>
              <td className="cf-num">{n.ms !== undefined ? Math.round(n.ms) : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {outputs &&
        Object.entries(outputs).map(([port, v]) => (
          <section key={port} className="cf-output" data-port={port}>
            <h4>
              {node}.{port}
            </h4>
            <ValueView value={v} ctx={{ ...(bundle.question ? { query: bundle.question } : {}), preview: bundle.preview }} />
          </section>
        ))}
    </div>
  );
}

export function BundleView({ bundle, onOpen }: { bundle: CiteflowView; onOpen?: OpenInEditor }) {
  if (bundle?.version !== 1) return <p className="cf-error">{trans.__("Unknown Citeflow view version %1", String((bundle as { version?: unknown })?.version))}</p>;
  switch (bundle.kind) {
    case "run":
      return <RunView bundle={bundle} onOpen={onOpen} />;
    case "passages":
      return <PassagesView passages={bundle.passages} {...(bundle.query ? { query: bundle.query } : {})} preview={bundle.preview} />;
    case "answer":
      return <AnswerWithSources answer={bundle.answer} passages={bundle.passages} preview={bundle.preview} />;
    case "verdicts":
      return <VerdictsView verdicts={bundle.verdicts} claims={bundle.claims} passages={bundle.passages} />;
    default:
      return <p className="cf-error">{trans.__("Unknown Citeflow view kind")}</p>;
  }
}

function AnswerWithSources({ answer, passages, preview }: { answer: Answer; passages: Passage[] | undefined; preview: number | undefined }) {
  const [focus, setFocus] = useState<string>();
  return (
    <>
      <AnswerView answer={answer} onCite={setFocus} />
      {passages && <PassagesView passages={passages} {...(focus ? { focus } : {})} preview={preview} />}
    </>
  );
}

export class RunRenderer extends ReactWidget implements IRenderMime.IRenderer {
  #bundle: CiteflowView | undefined;

  constructor(private readonly onOpen: OpenInEditor | undefined) {
    super();
    this.addClass("cf-rendered");
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.#bundle = model.data[CITEFLOW_MIME] as unknown as CiteflowView;
    this.update();
  }

  protected render() {
    return this.#bundle ? <BundleView bundle={this.#bundle} {...(this.onOpen ? { onOpen: this.onOpen } : {})} /> : null;
  }
}
