import { createReadStream, statSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { GgufNotFoundError, hubGguf, loadLocalChat } from "@citeflow/models";
import { tempDir } from "../helpers.js";
import { GEMMA } from "./local.js";
import { json, loopback, type Loopback } from "./loopback.js";

/** `hf:` chat models come from the Hugging Face hub — here a loopback server speaking its file protocol ($HF_ENDPOINT). */
describe("a chat model named by a hub URI", { timeout: 120_000 }, () => {
  let server: Loopback | undefined;
  const saved = { endpoint: process.env.HF_ENDPOINT, home: process.env.CITEFLOW_MODELS_HOME };
  afterEach(async () => {
    await server?.close();
    for (const [k, v] of [
      ["HF_ENDPOINT", saved.endpoint],
      ["CITEFLOW_MODELS_HOME", saved.home],
    ] as const)
      v === undefined ? delete process.env[k] : (process.env[k] = v);
  });
  const size = statSync(GEMMA).size;

  it("downloads into the models home only when allowed, then loads it from there", async () => {
    server = await loopback((req, res) => {
      if (!req.path.startsWith("/acme/gemma-gguf/resolve/main/gemma-3-270m-q4_k_m.gguf")) return json(res, 404, { error: "Entry not found" });
      const m = /bytes=(\d+)-(\d*)/.exec(String((server!.requests.at(-1)!.headers.range as string | undefined) ?? ""));
      const start = m ? Number(m[1]) : 0;
      const end = m && m[2] ? Number(m[2]) : size - 1;
      const headers = { "content-type": "application/octet-stream", "accept-ranges": "bytes", "content-length": String(end - start + 1), etag: '"gemma"' };
      if (req.method === "HEAD") return void (res.writeHead(200, { ...headers, "content-length": String(size) }), res.end());
      res.writeHead(m ? 206 : 200, m ? { ...headers, "content-range": `bytes ${start}-${end}/${size}` } : headers);
      createReadStream(GEMMA, { start, end }).pipe(res);
    });
    process.env.HF_ENDPOINT = `${server.url}/`;
    const home = tempDir();
    const uri = "hf:acme/gemma-gguf/gemma-3-270m-q4_k_m.gguf";

    await expect(hubGguf(uri, false, home)).rejects.toThrow(GgufNotFoundError);
    await expect(hubGguf(uri, false, home)).rejects.toThrow(/CITEFLOW_ALLOW_DOWNLOADS=1/);
    expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(0);

    const path = await hubGguf(uri, true, home);
    expect(path.startsWith(home)).toBe(true);
    expect(statSync(path).size).toBe(size);
    const gets = server.requests.filter((r) => r.method === "GET").length;
    expect(await hubGguf(uri, false, home)).toBe(path); // there now: no download
    expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(gets);
    const r = await (await loadLocalChat(path)).chat([{ role: "user", content: "Question: What is the capital of France?\nAnswer:" }], { maxTokens: 8 });
    expect(r.usage!.completionTokens).toBeGreaterThan(0);

    await expect(hubGguf("hf:acme/missing/none.gguf", true, home)).rejects.toThrow(/downloading chat model hf:acme\/missing\/none\.gguf into .* failed/);
  });
});
