import type { NodeRegistry } from "@citeflow/core";
import { configFromEnv, createServices, type CiteflowServices } from "@citeflow/nodes";
import { Host, type Session } from "@citeflow/host";
import { UsageError } from "./errors.js";

export interface CliServiceOptions {
  /** --store: the store nodes use when their param names none. */
  store?: string | undefined;
  /** The graph file's folder, where its `file:` prompts are read from (default: the working folder). */
  graphDir?: string | undefined;
  /** --allow-endpoint: servers the user lets the graph reach for this command. */
  allowEndpoints?: string[] | undefined;
  /** --allow-models-dir: models folders the user lets the graph's nodes load from for this command. */
  allowModelsDirs?: string[] | undefined;
  /** --models-dir of a command that builds its own graphs (eval, search): the user named it, so its nodes may load from it. */
  modelsDir?: string | undefined;
}

/** The services a command's runs use: the environment read once, then the command's own options over it. */
export function cliServices(o: CliServiceOptions = {}): CiteflowServices {
  const config = configFromEnv(process.env, o.graphDir);
  const services = createServices(o.store ? { ...config, store: o.store } : config);
  try {
    for (const url of o.allowEndpoints ?? []) services.allowEndpoint(url);
    for (const dir of [...(o.allowModelsDirs ?? []), ...(o.modelsDir ? [o.modelsDir] : [])]) services.allowModelsDir(dir);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return services;
}

/** A command's host: the registry and the command's services (made when first used). */
export function cliHost(registry: NodeRegistry, o: CliServiceOptions = {}): Host {
  return new Host(registry, () => cliServices(o));
}

/** A command's session: its host's, on the run store its runs are recorded in (--runs). */
export function cliSession(registry: NodeRegistry, runs: string, o: CliServiceOptions = {}): Session {
  return cliHost(registry, o).session(runs, "cli");
}
