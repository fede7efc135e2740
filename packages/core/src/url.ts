/**
 * A URL as it may be shown, logged or stored: without the user name and password a URL can carry
 * (`http://user:pw@host/v1` → `http://host/v1`). Anything that does not parse as a URL is returned
 * as it is. The one rule for every place a configured server's address is printed or recorded.
 */
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (u.username === "" && u.password === "") return url;
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return url;
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
 * goes without one. The same rule for anything else the user configured for that endpoint only
 * (its custom headers).
 */
export function keyFor<T extends string | Readonly<Record<string, string>>>(url: string | undefined, configuredUrl: string, key: T | undefined): T | undefined {
  if (!key) return undefined;
  if (url === undefined || url === "") return key;
  return configuredUrl !== "" && sameEndpoint(url, configuredUrl) ? key : undefined;
}

/**
 * Header lines as the OpenAI SDK reads $OPENAI_CUSTOM_HEADERS (`Name: value` a line, blank lines
 * skipped): the headers, and the numbers (from 1) of the lines that are not `Name: value`.
 */
export function headerLines(text: string): { headers: Record<string, string>; bad: number[] } {
  const headers: Record<string, string> = {};
  const bad: number[] = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    const colon = line.indexOf(":");
    if (colon <= 0 || !line.slice(0, colon).trim()) bad.push(i + 1);
    else headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  });
  return { headers, bad };
}
