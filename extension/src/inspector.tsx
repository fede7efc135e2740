/** The selected node: its params, its badge, and every output port through the matching inspector. */
import { modelCalls, type Claim, type CorrectionInput, type ModelCall, type ModelCardView, type Passage } from "@citeflow/core/browser";
import { useEffect, useState } from "react";
import { trans } from "./i18n";
import { feedbackIterations, type FeedbackIteration } from "./feedback";
import { isClaims, isPassages, ValueView, type ValueContext } from "./inspectors";
import { FeedbackTree } from "./inspectors/feedback";
import { nodeSpec, setParam, splitRef } from "./model";
import { ParamsForm } from "./params";
import { reveal } from "./reveal";
import type { EditorState } from "./state";
import { ModelCalls } from "./usage";

/** Resolves the node's outputs and what its inputs received (for context: sources, claims). */
function useNodeValues(state: EditorState, nodeId: string) {
  const [values, setValues] = useState<{ outputs?: Record<string, unknown>; passages?: Passage[]; claims?: Claim[]; iterations?: FeedbackIteration[]; calls?: ModelCall[]; error?: string }>({});
  const badge = state.run?.nodes[nodeId];
  useEffect(() => {
    let live = true;
    setValues({});
    const p = state.outputs(nodeId);
    if (!p) return;
    void (async () => {
      try {
        const outputs = await p;
        const ctx: { passages?: Passage[]; claims?: Claim[]; iterations?: FeedbackIteration[]; calls?: ModelCall[] } = {};
        // The node's trace: a self-feedback loop's items, retrievals and edits.
        const spans = await state.stored.spansOf(nodeId);
        const iterations = feedbackIterations(spans);
        if (iterations.length) ctx.iterations = iterations;
        const calls = modelCalls(spans);
        if (calls.length) ctx.calls = calls;
        for (const e of state.doc.edges.filter((e) => splitRef(e.to).node === nodeId)) {
          const from = splitRef(e.from);
          const up = await state.outputs(from.node)?.catch(() => undefined);
          const v = up?.[from.port];
          if (isPassages(v)) ctx.passages = [...(ctx.passages ?? []), ...v];
          if (isClaims(v)) ctx.claims = v;
        }
        if (live) setValues({ outputs, ...ctx });
      } catch (e) {
        if (live) setValues({ error: (e as Error).message });
      }
    })();
    return () => void (live = false);
  }, [state, nodeId, state.run?.runId, badge?.status]);
  return values;
}

export function NodeInspector({ state, nodeId }: { state: EditorState; nodeId: string }) {
  const node = state.doc.nodes.find((n) => n.id === nodeId);
  const spec = node && nodeSpec(state.catalogue, node.type);
  const values = useNodeValues(state, nodeId);
  const [notice, setNotice] = useState<string>();
  if (!node) return null;
  const run = state.run;
  const badge = run?.nodes[nodeId];
  const ran = run?.readOnly ? run.params?.[nodeId] : undefined;
  const correct = async (correction: CorrectionInput) => {
    if (!run) return;
    try {
      await state.correct(correction);
      setNotice(trans.__("Correction recorded on run %1 (the run itself is unchanged).", run.runId));
    } catch (e) {
      setNotice((e as Error).message);
    }
  };
  const corrections = (run?.corrections ?? []).filter((c) => c.nodeId === nodeId);
  const ctx = (port: string): ValueContext => ({
    query: state.question,
    ...(corrections.length ? { corrections } : {}),
    ...(values.passages ? { passages: values.passages } : {}),
    ...(values.claims ? { claims: values.claims } : {}),
    ...(run && !run.readOnly ? { onApply: (v: unknown) => void state.start({ overrides: { [nodeId]: { [port]: v } } }) } : {}),
    ...(run
      ? {
          onCorrectVerdict: (v, label) =>
            void correct({ kind: "verdict", nodeId, claimId: v.claimId, ...(v.passageId ? { passageId: v.passageId } : {}), label: label as Extract<CorrectionInput, { kind: "verdict" }>["label"] }),
          onRelevance: (passageId, relevant) => void correct({ kind: "relevance", nodeId, passageId, relevant }),
          onEditAnswer: (text) => void correct({ kind: "answer", nodeId, text }),
        }
      : {}),
    onShowPage: (request) => state.stored.evidencePage(request),
  });
  return (
    <div className="cf-inspector" data-node={nodeId}>
      <h3>
        {node.id} <span className="cf-node-type">{node.type}</span>
      </h3>
      {spec?.description && <p className="cf-muted">{spec.description}</p>}
      {badge?.error && <pre className="cf-error">{badge.error}</pre>}
      {badge?.warnings?.length ? (
        <ul className="cf-warnings" data-view="warnings">
          {badge.warnings.map((w) => (
            <li key={w}>⚠ {w}</li>
          ))}
        </ul>
      ) : null}
      {badge?.models && <ModelsLine models={badge.models} state={state} />}
      <details open={!values.outputs}>
        <summary>{ran ? trans.__("Params this run used") : trans.__("Params")}</summary>
        {!spec ? (
          <p className="cf-error">{trans.__("Unknown node type %1", node.type)}</p>
        ) : ran ? (
          // A stored run is shown with the params it ran with, read-only: the graph's may have changed since.
          <fieldset className="cf-params-ran" disabled>
            <ParamsForm node={{ ...node, params: ran }} spec={spec} onChange={() => undefined} />
          </fieldset>
        ) : (
          <ParamsForm node={node} spec={spec} onChange={(k, v) => state.edit(setParam(state.doc, node.id, k, v))} />
        )}
      </details>
      {notice && (
        <p className="cf-notice" role="status">
          {notice}
        </p>
      )}
      {values.error && <p className="cf-error">{values.error}</p>}
      {badge?.status === "running" && badge.progress && (
        <section className="cf-output" data-view="generating">
          <h4>{trans.__("Generating…")}</h4>
          <p className="cf-progress-live">{badge.progress}</p>
        </section>
      )}
      {values.calls && (
        <section className="cf-output" data-view="model-calls">
          <h4>{trans.__("Language model calls")}</h4>
          <ModelCalls calls={values.calls} />
        </section>
      )}
      {values.iterations && (
        <section className="cf-output" data-view="feedback">
          <h4>{trans.__("Self-feedback iterations")}</h4>
          <FeedbackTree iterations={values.iterations} />
        </section>
      )}
      {values.outputs &&
        Object.entries(values.outputs).map(([port, v]) => (
          <section key={port} className={`cf-output${state.port === port ? " cf-port-focus" : ""}`} data-port={port} ref={state.port === port ? (el) => reveal(el, "start") : undefined}>
            <h4>
              {port} <span className="cf-node-type">{spec?.outputs[port]?.type}</span>
            </h4>
            <ValueView value={v} ctx={ctx(port)} />
          </section>
        ))}
    </div>
  );
}

/** The models that made the node's outputs; each trained one with its card (base, data, command, held-out scores) to open below. */
function ModelsLine({ models, state }: { models: string[]; state: EditorState }) {
  const [cards, setCards] = useState<Record<string, ModelCardView>>({});
  const [open, setOpen] = useState<string | undefined>(undefined);
  useEffect(() => {
    let live = true;
    setCards({});
    for (const m of models)
      state.stored.modelCard(m).then(
        (card) => live && card && setCards((c) => ({ ...c, [m]: card })),
        () => undefined,
      );
    return () => void (live = false);
  }, [models.join("\n"), state]);
  const shown = open ? cards[open] : undefined;
  return (
    <div className="cf-node-models-line" data-view="models">
      {trans._n("Model", "Models", models.length)}:{" "}
      {models.map((m, i) => (
        <span key={m} className="cf-model" data-model={m}>
          {i > 0 && ", "}
          <span className="cf-mono">{m}</span>
          {cards[m] && (
            <button
              className="cf-link cf-card-toggle"
              aria-expanded={open === m}
              title={trans.__("The model's card: its base weights, training data, command and held-out scores")}
              onClick={() => setOpen(open === m ? undefined : m)}
            >
              {" "}
              {trans.__("card")}
            </button>
          )}
        </span>
      ))}
      {shown && (
        <div className="cf-model-card" data-model={open}>
          {shown.summary && <p className="cf-muted">{shown.summary}</p>}
          <table className="cf-card-facts">
            <tbody>
              {shown.facts.map(([what, value], i) => (
                <tr key={i}>
                  <th>{what}</th>
                  <td>{value.replace(/`/g, "")}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="cf-muted cf-mono">{shown.path}</p>
        </div>
      )}
    </div>
  );
}
