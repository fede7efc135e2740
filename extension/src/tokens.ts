/**
 * What Citeflow's JupyterLab extension provides to other extensions. Require `ICiteflowTracker` to
 * find the open pipeline editors (the current one, each one's path, state and kernel session).
 */
import type { IWidgetTracker } from "@jupyterlab/apputils";
import type { DocumentRegistry, IDocumentWidget } from "@jupyterlab/docregistry";
import { Token } from "@lumino/coreutils";
import type { CiteflowPanel } from "./widget";

/** A pipeline editor: a `*.citeflow.json` document shown as a graph. */
export type CiteflowEditor = IDocumentWidget<CiteflowPanel, DocumentRegistry.ICodeModel>;

/** The open pipeline editors. */
export type ICiteflowTracker = IWidgetTracker<CiteflowEditor>;
export const ICiteflowTracker = new Token<ICiteflowTracker>("@citeflow/jupyterlab:ICiteflowTracker", "The open Citeflow pipeline editors.");

/** The editor's commands, by id (palette, menus, shortcuts and the settings' keyboard shortcuts name them). */
export const CommandIDs = {
  create: "citeflow:new",
  fromTemplate: "citeflow:new-from-template",
  run: "citeflow:run",
  runTo: "citeflow:run-to",
  runFrom: "citeflow:run-from",
  runOnly: "citeflow:run-node",
  breakpoint: "citeflow:toggle-breakpoint",
  stop: "citeflow:stop",
  undo: "citeflow:undo",
  redo: "citeflow:redo",
  copy: "citeflow:copy",
  cut: "citeflow:cut",
  remove: "citeflow:delete",
  paste: "citeflow:paste",
  selectAll: "citeflow:select-all",
  layout: "citeflow:auto-layout",
} as const;
