/**
 * Which servers a graph may reach. A graph file is data, shared like a notebook: it may name a
 * model, never a key, and a server it names is used only when the user configured that server
 * ($OPENAI_BASE_URL, $CITEFLOW_ALLOWED_ENDPOINTS) or consented to it (`citeflow run
 * --allow-endpoint`, the editor's dialog): the services hold that list. The public search
 * services' own addresses are the product's, not the graph's, and need no consent.
 */

export class EndpointNotAllowed extends Error {
  override name = "EndpointNotAllowed";
  constructor(
    readonly url: string,
    where: string,
  ) {
    super(
      `${where} names the server ${url}, which you have not configured: a graph file cannot choose where requests go. ` +
        `To allow it, run with --allow-endpoint ${httpUrl(url)?.origin ?? url}, confirm it in the editor, or add it to $CITEFLOW_ALLOWED_ENDPOINTS`,
    );
  }
}

/** `scheme://host:port` and the path without a trailing slash, or undefined when it is not an http(s) URL. */
export function httpUrl(url: string): { origin: string; path: string } | undefined {
  try {
    const u = new URL(url.trim());
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    return { origin: u.origin, path: u.pathname.replace(/\/+$/, "") };
  } catch {
    return undefined;
  }
}

/** Whether `url` is one of `allowed` or under one (same origin, path at or below its path). */
export function allowedEndpoint(url: string, allowed: string[]): boolean {
  const u = httpUrl(url);
  if (!u) return false;
  return allowed.some((a) => {
    const b = httpUrl(a);
    return !!b && b.origin === u.origin && (u.path === b.path || u.path.startsWith(`${b.path}/`) || b.path === "");
  });
}

/** Whether two URLs name the same server and path (the configured $OPENAI_BASE_URL, written either way). */
export function sameEndpoint(a: string, b: string): boolean {
  const x = httpUrl(a);
  const y = httpUrl(b);
  return !!x && !!y && x.origin === y.origin && x.path === y.path;
}

/**
 * The one rule for keys, for every client: a key goes only to the endpoint the user configured it
 * for. A request to `url` (undefined: the client's own default, the service the key was issued
 * by) carries `key` only when `url` is that endpoint; to any other server, consented or not, it
 * goes without one.
 */
export function keyFor(url: string | undefined, configuredUrl: string, key: string | undefined): string | undefined {
  if (!key) return undefined;
  if (url === undefined || url === "") return key;
  return configuredUrl !== "" && sameEndpoint(url, configuredUrl) ? key : undefined;
}
