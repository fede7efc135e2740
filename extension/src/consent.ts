/**
 * Before a run reaches servers or models folders the user has not configured, the editor asks (a
 * graph file is shared like a notebook, so it cannot decide where requests go or which model files load). A yes is remembered for that
 * file and those servers, in this browser; a new server in the file asks again.
 */
import { Dialog, showDialog } from "@jupyterlab/apputils";
import { createElement as h } from "react";
import { trans } from "./i18n";
import type { Reach } from "@citeflow/core/browser";

const STORAGE = "citeflow:allowed-servers";

function remembered(): Record<string, string[]> {
  try {
    const v = JSON.parse(localStorage.getItem(STORAGE) ?? "{}") as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, string[]>) : {};
  } catch {
    return {};
  }
}

export async function confirmServers(path: string, servers: Reach[]): Promise<boolean> {
  const urls = [...new Set(servers.map((s) => s.target))];
  const known = new Set(remembered()[path] ?? []);
  if (urls.every((u) => known.has(u))) return true;
  const body = h(
    "div",
    { className: "cf-consent" },
    h("p", null, trans.__("This pipeline reaches servers or models folders you have not configured:")),
    h(
      "ul",
      null,
      servers.map((s) =>
        h(
          "li",
          { key: `${s.node}.${s.param}` },
          s.kind === "models" ? trans.__("loads models from ") : trans.__("sends requests to "),
          h("code", null, s.target),
          ` — ${trans.__('node "%1", %2', s.node, s.param)}`,
        ),
      ),
    ),
    h(
      "p",
      null,
      trans.__(
        "A pipeline file cannot choose where requests go or which model files run, so Citeflow asks. What the pipeline sends (questions, passages, prompts) goes to the servers; no API key does. Models from a folder are checked against its SHA256SUMS when it has one.",
      ),
    ),
  );
  const answer = await showDialog({
    title: trans.__("Allow these servers and folders?"),
    body,
    buttons: [Dialog.cancelButton({ label: trans.__("Do not run") }), Dialog.warnButton({ label: trans.__("Allow and run") })],
    checkbox: { label: trans.__("Remember for this file"), checked: true },
  });
  if (!answer.button.accept) return false;
  if (answer.isChecked) {
    const all = remembered();
    all[path] = [...new Set([...(all[path] ?? []), ...urls])];
    localStorage.setItem(STORAGE, JSON.stringify(all));
  }
  return true;
}
