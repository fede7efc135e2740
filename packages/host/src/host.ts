import type { CompiledGraph, GraphDoc, NodeRegistry, RunOrigin } from "@citeflow/core";
import { configFromEnv, createRegistry, createServices, graphReach, type CiteflowServices, type Reach, type ServicesPatch } from "@citeflow/nodes";
import type { RunStore } from "@citeflow/runstore";
import { openGraph } from "./graphs.js";
import { Session } from "./session.js";

/**
 * Where a front end's runs are hosted: the node registry, Citeflow's services as configured now,
 * graphs opened by one rule, consent for what a graph reaches, and sessions on run stores (each run
 * started, recorded and among the runs in progress; question sets through `QuestionSet`). A front end
 * builds one at its edge from its configuration; the kernel's comm and the notebook cells it runs
 * share the process's (`processHost`), so that what a notebook configures, the editor's runs use.
 */
export class Host {
  #services: CiteflowServices | undefined;

  constructor(
    readonly registry: NodeRegistry,
    /** Makes the services on first use (an edge reads its environment there, not before). */
    private readonly make: () => CiteflowServices,
  ) {}

  /** The services runs use now: made on first use, then as `configure` changed them. */
  get services(): CiteflowServices {
    return (this.#services ??= this.make());
  }

  /** Change the services for the runs that follow; models already loaded stay loaded. */
  configure(patch: ServicesPatch): CiteflowServices {
    return (this.#services = this.services.with(patch));
  }

  /** A session on a run store, with the services as they are now (or those given). */
  session(runs: string | RunStore, origin?: RunOrigin, services: CiteflowServices = this.services): Session {
    return new Session(this.registry, services, runs, origin);
  }

  /** A graph from a file path (an existing file wins), a template name or a document (`openGraph`). */
  openGraph(source: string | GraphDoc, folder?: string): CompiledGraph {
    return openGraph(source, this.registry, folder);
  }

  /** What a graph would reach outside the process (servers, models folders, files), each allowed or not, once what the user `agreed` to is allowed. */
  reach(graph: CompiledGraph, agreed: string[] = []): Reach[] {
    for (const target of agreed) this.services.allow(target);
    return graphReach(graph.doc.nodes, this.services);
  }

  /**
   * What a graph reaches that the user has neither configured nor agreed to: a graph file cannot choose where requests
   * go or which model files load, so a run starts only once this is empty (consent is kept for the process's life).
   */
  needsConsent(graph: CompiledGraph, agreed: string[] = []): Reach[] {
    return this.reach(graph, agreed).filter((r) => r.kind !== "file" && !r.allowed);
  }
}

let shared: Host | undefined;

/**
 * The process's host, made on first use from `env` (the built-in nodes; services from the environment): the one the
 * kernel's comm and the notebook package share in a kernel, whichever asks first.
 */
export function processHost(env: NodeJS.ProcessEnv): Host {
  return (shared ??= new Host(createRegistry(), () => createServices(configFromEnv(env))));
}
