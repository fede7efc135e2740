/**
 * Which servers a graph may reach. A graph file is data, shared like a notebook: it may name a
 * model, never a key, and a server it names is used only when the user configured that server
 * ($OPENAI_BASE_URL, $CITEFLOW_ALLOWED_ENDPOINTS) or consented to it (`citeflow run
 * --allow-endpoint`, the editor's dialog): the services hold that list. The public search
 * services' own addresses are the product's, not the graph's, and need no consent.
 */

import { httpUrl } from "@citeflow/core";

export { httpUrl, keyFor, sameEndpoint } from "@citeflow/core";

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

/** Whether `url` is one of `allowed` or under one (same origin, path at or below its path). */
export function allowedEndpoint(url: string, allowed: string[]): boolean {
  const u = httpUrl(url);
  if (!u) return false;
  return allowed.some((a) => {
    const b = httpUrl(a);
    return !!b && b.origin === u.origin && (u.path === b.path || u.path.startsWith(`${b.path}/`) || b.path === "");
  });
}
