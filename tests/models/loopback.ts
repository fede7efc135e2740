import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Loopback {
  url: string;
  requests: Array<{ method: string; path: string; headers: IncomingMessage["headers"]; body: any }>;
  close(): Promise<void>;
}

/**
 * A loopback HTTP server for tests of remote services. `handler` answers each request; it sees
 * the parsed JSON body and the number of the request (0-based).
 */
export async function loopback(handler: (req: { method: string; path: string; body: any; n: number }, res: ServerResponse) => void | Promise<void>): Promise<Loopback> {
  const requests: Loopback["requests"] = [];
  const server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* keep the raw text */
    }
    const entry = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
    requests.push(entry);
    await handler({ ...entry, n: requests.length - 1 }, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

/** An OpenAI chat.completion body with one choice. */
export function completion(content: string, model = "loopback-model") {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
  };
}
