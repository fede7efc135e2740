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
