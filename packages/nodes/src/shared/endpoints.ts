/**
 * Which servers a graph may reach. A graph file is data, shared like a notebook: it may name a
 * model, never a key, and a server it names is used only when the user configured that server
 * ($OPENAI_BASE_URL, $CITEFLOW_ALLOWED_ENDPOINTS) or consented to it for this process (`citeflow
 * run --allow-endpoint`, the editor's dialog). The public search services' own addresses are the
 * product's, not the graph's, and need no consent.
 */

/** Endpoints consented to in this process, on top of the configured ones. */
const consented = new Set<string>();

export class EndpointNotAllowed extends Error {
  override name = "EndpointNotAllowed";
  constructor(
    readonly url: string,
    where: string,
  ) {
    super(
      `${where} names the server ${url}, which you have not configured: a graph file cannot choose where requests go. ` +
        `To allow it, run with --allow-endpoint ${normal(url)?.origin ?? url}, confirm it in the editor, or add it to $CITEFLOW_ALLOWED_ENDPOINTS`,
    );
  }
}

/** `scheme://host:port/path` without a trailing slash, or undefined when it is not an http(s) URL. */
function normal(url: string): { origin: string; path: string } | undefined {
  try {
    const u = new URL(url.trim());
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    return { origin: u.origin, path: u.pathname.replace(/\/+$/, "") };
  } catch {
    return undefined;
  }
}

/** The endpoints the user configured: $OPENAI_BASE_URL and $CITEFLOW_ALLOWED_ENDPOINTS (comma or space separated), then consents. */
export function configuredEndpoints(env: NodeJS.ProcessEnv = process.env): string[] {
  const listed = (env.CITEFLOW_ALLOWED_ENDPOINTS ?? "").split(/[\s,]+/).filter(Boolean);
  return [...(env.OPENAI_BASE_URL ? [env.OPENAI_BASE_URL] : []), ...listed, ...consented];
}

/** Whether `url` is one of `allowed` or under one (same origin, path at or below its path). */
export function endpointAllowed(url: string, allowed: string[] = configuredEndpoints()): boolean {
  const u = normal(url);
  if (!u) return false;
  return allowed.some((a) => {
    const b = normal(a);
    return !!b && b.origin === u.origin && (u.path === b.path || u.path.startsWith(`${b.path}/`) || b.path === "");
  });
}

/** Throws EndpointNotAllowed unless the user configured or consented to `url`. `where`: the graph's node and param. */
export function requireEndpoint(url: string, where: string): void {
  if (!endpointAllowed(url)) throw new EndpointNotAllowed(url, where);
}

/** Consent for this process (the CLI's --allow-endpoint, the editor's dialog): `url` and everything under it. */
export function allowEndpoint(url: string): void {
  if (!normal(url)) throw new Error(`--allow-endpoint ${url}: not an http(s) URL`);
  consented.add(url.trim());
}

/** Whether two URLs name the same server and path (the configured $OPENAI_BASE_URL, written either way). */
export function sameEndpoint(a: string, b: string): boolean {
  const x = normal(a);
  const y = normal(b);
  return !!x && !!y && x.origin === y.origin && x.path === y.path;
}
