/**
 * What the editor's views ask the kernel about stored runs: a run's trace, corrections, the PDF
 * page behind a verdict, the runs of a graph, diffs, exports and the cards of the models that ran. Views call these (through
 * `EditorState.stored`), never the comm.
 */
import type { CorrectionInput, CorrectionView, ExportReply, ExportRequest, MethodParams, ModelCardView, PageImage, RunDiffView, RunListingView, SpanView } from "@citeflow/core/browser";
import type { CiteflowClient } from "./client";

export class StoredRuns {
  private readonly cards = new Map<string, Promise<ModelCardView | null>>();

  constructor(
    private readonly client: CiteflowClient,
    /** The run the editor shows, and the graph's name, when asked. */
    private readonly current: () => { runId: string | undefined; graphName: string },
  ) {}

  /** The shown run's trace: a node's spans (a loop's iterations, model calls). */
  async spansOf(nodeId: string): Promise<SpanView[]> {
    const { runId } = this.current();
    if (!runId) return [];
    const record = await this.client.request("record", { runId });
    return record.nodes.find((n) => n.id === nodeId)?.spans ?? [];
  }

  /** Records a correction of a node's output on the shown run (stored beside it; the run is unchanged). */
  async correct(correction: CorrectionInput): Promise<CorrectionView> {
    const { runId } = this.current();
    if (!runId) throw new Error("no run to correct");
    return this.client.request("correct", { runId, correction });
  }

  /** A PDF page with a span of its text marked, rendered by the kernel. */
  evidencePage(request: MethodParams<"evidencePage">): Promise<PageImage> {
    return this.client.request("evidencePage", request);
  }

  /** The stored runs of this graph, newest first. */
  list(): Promise<RunListingView[]> {
    return this.client.request("runs", { graphName: this.current().graphName });
  }

  diff(a: string, b: string): Promise<RunDiffView> {
    return this.client.request("diff", { a, b });
  }

  /** A stored run's node outputs (port → value). */
  async outputs(runId: string, nodeId: string): Promise<Record<string, unknown>> {
    return (await this.client.request("output", { runId, nodeId })) as Record<string, unknown>;
  }

  async exportFormats(): Promise<readonly string[]> {
    return (await this.client.request("hello")).exportFormats;
  }

  export(request: ExportRequest): Promise<ExportReply> {
    return this.client.request("export", request);
  }

  /** A model's card (asked once per model while the editor is open; a failed ask is asked again). */
  modelCard(model: string): Promise<ModelCardView | null> {
    let card = this.cards.get(model);
    if (!card) {
      this.cards.set(model, (card = this.client.request("modelCard", { model })));
      card.catch(() => this.cards.delete(model));
    }
    return card;
  }
}
