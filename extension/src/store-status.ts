/**
 * How far the store Citeflow searches is indexed, while it is: `npm run lab` serves JupyterLab first
 * and indexes SciFact beside it. The server extension answers GET /citeflow/store (the store's lock
 * and meta); this asks every few seconds until the store is ready, and says it in the status bar
 * ("Indexing SciFact: 41 %, about 6 min") and on the template launcher cards.
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from "@jupyterlab/application";
import { URLExt } from "@jupyterlab/coreutils";
import { MainAreaWidget } from "@jupyterlab/apputils";
import { Launcher } from "@jupyterlab/launcher";
import { ServerConnection } from "@jupyterlab/services";
import { IStatusBar } from "@jupyterlab/statusbar";
import { Signal } from "@lumino/signaling";
import { Widget } from "@lumino/widgets";
import { indexingProgress } from "@citeflow/core/browser";
import { trans } from "./i18n";
import { CommandIDs } from "./tokens";

/** What the server says of the store (citeflow_jupyterlab/store.py). */
export interface StoreStatus {
  state: "ready" | "indexing" | "unfinished" | "missing" | "none";
  store?: string;
  label?: string;
  documents?: number;
  total?: number;
  startedAt?: string;
}

/** The store's status as last heard, and a signal when it changes. */
export const storeStatus = { current: undefined as StoreStatus | undefined, changed: new Signal<object, void>({}) };

/** The status in a few words, for the status bar and the launcher cards; "" when there is nothing to say. */
export function storeStatusText(s: StoreStatus | undefined, now = Date.now()): string {
  if (!s) return "";
  const name = s.label ?? trans.__("the store");
  if (s.state === "indexing") {
    const p: { percent?: number; minutesLeft?: number } = s.startedAt
      ? indexingProgress({ startedAt: s.startedAt, ...(s.documents !== undefined ? { documents: s.documents } : {}), ...(s.total !== undefined ? { total: s.total } : {}) }, now)
      : {};
    const parts = [p.percent !== undefined ? `${p.percent} %` : "", p.minutesLeft !== undefined ? trans.__("about %1 min", p.minutesLeft) : ""].filter(Boolean);
    return parts.length ? trans.__("Indexing %1: %2", name, parts.join(", ")) : trans.__("Indexing %1", name);
  }
  if (s.state === "unfinished") return trans.__("%1 is not fully indexed: run npm run lab again to resume", name);
  return "";
}

/** How often to ask while an ingest writes the store, and while there is none yet (the lab starts one after serving). */
const POLL_MS = { indexing: 5000, missing: 60_000 } as const;

async function fetchStatus(): Promise<StoreStatus | undefined> {
  const settings = ServerConnection.makeSettings();
  const res = await ServerConnection.makeRequest(URLExt.join(settings.baseUrl, "citeflow", "store"), {}, settings);
  // Another server without Citeflow's server extension: nothing to say.
  if (!res.ok) return undefined;
  return (await res.json()) as StoreStatus;
}

export const storeStatusPlugin: JupyterFrontEndPlugin<void> = {
  id: "@citeflow/jupyterlab:store-status",
  description: "Says how far the store Citeflow searches is indexed, while it is",
  autoStart: true,
  optional: [IStatusBar],
  activate: (app: JupyterFrontEnd, statusBar: IStatusBar | null) => {
    const item = new Widget();
    item.addClass("cf-store-status");
    item.node.setAttribute("role", "status");
    const show = () => {
      item.node.textContent = storeStatusText(storeStatus.current);
      item.node.title = storeStatus.current?.store ?? "";
      // The launcher's template cards read it in their label (once the editor's plugin has made the command); a
      // launcher draws its cards again only when told.
      if (app.commands.hasCommand(CommandIDs.fromTemplate)) app.commands.notifyCommandChanged(CommandIDs.fromTemplate);
      for (const w of app.shell.widgets("main")) if (w instanceof MainAreaWidget && w.content instanceof Launcher) w.content.update();
    };
    statusBar?.registerStatusItem("@citeflow/jupyterlab:store-status", {
      item,
      align: "left",
      rank: 10,
      isActive: () => storeStatusText(storeStatus.current) !== "",
      activeStateChanged: storeStatus.changed,
    });
    const poll = async () => {
      let next: StoreStatus | undefined;
      try {
        next = await fetchStatus();
      } catch {
        next = storeStatus.current; // the server is away for a moment: ask again
      }
      storeStatus.current = next;
      show();
      storeStatus.changed.emit();
      if (next && (next.state === "indexing" || next.state === "missing")) setTimeout(() => void poll(), POLL_MS[next.state]);
    };
    void poll();
  },
};
