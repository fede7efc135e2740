import { processHost, type Host } from "@citeflow/host";
import type { CiteflowServices, ServicesPatch } from "@citeflow/nodes";

/** This process's host (`@citeflow/host`'s `processHost`): in a kernel, the one its editor's runs use too. */
export function host(): Host {
  return processHost(process.env);
}

/**
 * What this kernel's runs use (models, stores, prompts, servers): the environment read once, on
 * first use, with what the notebook changed since (`configure`, `sciFactStore`, `pdfStore`,
 * `useOfflineModels`).
 */
export function services(): CiteflowServices {
  return host().services;
}

/**
 * Change this kernel's settings for the runs that follow, e.g. `configure({ store: "my-store" })`
 * or `configure({ chat: { model: "llama3.1", baseUrl: "http://localhost:11434/v1" } })`; models
 * already loaded stay loaded.
 */
export function configure(patch: ServicesPatch): CiteflowServices {
  return host().configure(patch);
}

/** Let graphs run in this kernel send requests to `url` (and what is under it), which you have not configured. No key is sent to it. */
export function allowEndpoint(url: string): void {
  services().allowEndpoint(url);
}

/** Let graphs run in this kernel load models from `dir` (a node's modelsDir param), which is not one of your configured models folders. */
export function allowModelsDir(dir: string): void {
  services().allowModelsDir(dir);
}

/** Consent to what a graph reaches, as the editor sends it: a server (an http(s) URL) or a models folder. */
export function allow(target: string): void {
  services().allow(target);
}
