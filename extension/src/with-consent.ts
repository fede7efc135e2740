/** The kernel's rule for a run or a question set whose graph names servers the user has not configured. */
import type { Reach } from "@citeflow/core/browser";
import { trans } from "./i18n";

type Refused = { needsConsent: Reach[] };

/**
 * Sends a run or set request; when the kernel answers with servers to agree to, asks (`agree`: the
 * servers agreed to, or undefined when the user declined) and sends it again with them. Undefined:
 * the user declined.
 */
export async function withConsent<Q extends object, R extends object>(
  request: Q,
  send: (r: Q & { allowEndpoints?: string[] }) => Promise<R>,
  agree: (servers: Reach[]) => Promise<string[] | undefined>,
): Promise<Exclude<R, Refused> | undefined> {
  let reply: R = await send(request);
  if ("needsConsent" in reply) {
    const urls = await agree((reply as Refused).needsConsent);
    if (!urls) return undefined;
    reply = await send({ ...request, allowEndpoints: urls });
    if ("needsConsent" in reply) throw new Error(trans.__("The kernel still refuses the servers %1", (reply as Refused).needsConsent.map((s) => s.target).join(", ")));
  }
  return reply as Exclude<R, Refused>;
}
