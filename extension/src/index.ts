/**
 * Citeflow for JupyterLab: the `*.citeflow.json` pipeline editor (file type, widget factory,
 * launcher, File › New, palette commands, shortcuts, settings) and the notebook renderer for
 * Citeflow runs. Other extensions can require `ICiteflowTracker`.
 */
import { plugin } from "./plugin";
import { storeStatusPlugin } from "./store-status";

export { ICiteflowTracker, CommandIDs, type CiteflowEditor } from "./tokens";
export default [plugin, storeStatusPlugin];
