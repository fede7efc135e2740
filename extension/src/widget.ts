/** The `*.citeflow.json` document: a DocumentWidget whose content is the React editor. */
import { ReactWidget } from "@jupyterlab/apputils";
import { PageConfig, PathExt } from "@jupyterlab/coreutils";
import { ABCWidgetFactory, DocumentWidget, type DocumentRegistry, type IDocumentWidget } from "@jupyterlab/docregistry";
import { createElement } from "react";
import { CiteflowClient } from "./client";
import { Editor } from "./editor";
import { emptyGraph, saveGraph } from "./model";
import { parseGraph } from "./parse";
import { EditorState } from "./state";
import { changedSpan } from "./textedit";

export const FACTORY = "Citeflow Pipeline Editor";
export const FILE_TYPE = "citeflow";

/**
 * The folder on the kernel's machine of a file the Jupyter server serves (its `serverRoot`, which
 * may start with "~", and the file's path), where a graph's relative `file:` prompts are read;
 * undefined for a file of another drive, or when the server does not say where its root is.
 */
export function fileFolder(path: string): string | undefined {
  const root = PageConfig.getOption("serverRoot");
  if (!root || path.includes(":")) return undefined;
  return `${root.replace(/\/+$/, "")}/${PathExt.dirname(path)}`.replace(/\/+$/, "");
}

export class CiteflowPanel extends ReactWidget {
  readonly state: EditorState;
  readonly #context: DocumentRegistry.IContext<DocumentRegistry.ICodeModel>;
  #written = "";
  /** The file has read as a graph once: later reads are changes underneath, undoable. */
  #read = false;

  constructor(context: DocumentRegistry.IContext<DocumentRegistry.ICodeModel>, defaultQuestion: string) {
    super();
    this.addClass("cf-panel");
    this.#context = context;
    this.state = new EditorState(emptyGraph(context.path), new CiteflowClient(context.sessionContext), () => fileFolder(context.path));
    this.state.question = defaultQuestion;
    this.state.docChanged.connect((_, doc) => {
      const model = context.model.sharedModel;
      this.#written = saveGraph(doc);
      const span = changedSpan(model.getSource(), this.#written);
      if (span) model.updateSource(span.start, span.end, span.text);
    });
    void context.ready.then(async () => {
      this.#load();
      context.model.contentChanged.connect(() => this.#load());
      await this.state.loadCatalogue();
      this.state.loaded = true;
      this.state.emit();
    });
  }

  /** Reads the file model unless the change is our own write (revert and reload come through here). */
  #load(): void {
    const text = this.#context.model.sharedModel.getSource();
    if (text === this.#written) return;
    try {
      const doc = parseGraph(text, this.#context.path);
      this.state.unreadable = undefined;
      this.state.reload(doc, !this.#read);
      this.#read = true;
    } catch (e) {
      this.state.unreadable = (e as Error).message;
    }
    this.#written = text;
    this.state.emit();
  }

  protected render() {
    return createElement(Editor, { state: this.state });
  }

  override dispose(): void {
    this.state.client.dispose();
    super.dispose();
  }
}

/**
 * A pipeline's document. Closed while its kernel starts, its tab goes at once and the document ends once the start
 * has settled (30 s at most): JupyterLab's session context, disposed mid-start, throws an uncaught "Disposed". The
 * kernel started meanwhile is then shut down with the document (plugin.ts). Opened again before that, it stays.
 */
export class CiteflowDocument extends DocumentWidget<CiteflowPanel, DocumentRegistry.ICodeModel> {
  #ending = false;

  override dispose(): void {
    const session = this.context.sessionContext;
    if (this.#ending) return;
    if (this.isDisposed || session.isDisposed || session.isReady) return super.dispose();
    this.#ending = true;
    this.parent = null;
    void Promise.race([session.ready, new Promise((r) => setTimeout(r, 30_000))]).then(() => {
      this.#ending = false;
      if (!this.isAttached) this.dispose();
    });
  }
}

export class CiteflowFactory extends ABCWidgetFactory<IDocumentWidget<CiteflowPanel, DocumentRegistry.ICodeModel>, DocumentRegistry.ICodeModel> {
  constructor(
    options: DocumentRegistry.IWidgetFactoryOptions<IDocumentWidget<CiteflowPanel, DocumentRegistry.ICodeModel>>,
    private readonly settings: () => { kernelName: string; defaultQuestion: string },
  ) {
    super(options);
  }

  protected createNewWidget(context: DocumentRegistry.IContext<DocumentRegistry.ICodeModel>): IDocumentWidget<CiteflowPanel, DocumentRegistry.ICodeModel> {
    const { kernelName, defaultQuestion } = this.settings();
    context.sessionContext.kernelPreference = { ...context.sessionContext.kernelPreference, name: kernelName, shouldStart: true, canStart: true, autoStartDefault: false };
    const content = new CiteflowPanel(context, defaultQuestion);
    const widget = new CiteflowDocument({ content, context });
    widget.addClass("cf-document");
    return widget;
  }
}
