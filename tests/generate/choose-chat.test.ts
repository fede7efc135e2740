import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chooseChat, configFromEnv } from "@citeflow/nodes";
import { tempDir } from "../helpers.js";

/** The one rule that picks a chat model from a node's params and the environment. */
describe("chooseChat", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of ["CITEFLOW_CHAT_MODEL", "CITEFLOW_MODELS", "CITEFLOW_MODELS_HOME", "OPENAI_BASE_URL"]) saved[k] === undefined ? delete process.env[k] : (process.env[k] = saved[k]);
  });
  const none = { model: "", baseUrl: "" };
  // The environment, read as an edge reads it, is the configuration the rule sees.
  const choose = (p: typeof none, task = "generate.answer") => chooseChat(p, configFromEnv(process.env), task);

  it("nothing named and no .gguf in the models folders: none, saying where it looked and what to run", () => {
    process.env.CITEFLOW_MODELS = tempDir();
    process.env.CITEFLOW_MODELS_HOME = tempDir();
    delete process.env.CITEFLOW_CHAT_MODEL;
    const c = choose(none);
    expect(c.kind).toBe("none");
    expect(c.kind === "none" && c.reason).toMatch(new RegExp(`${process.env.CITEFLOW_MODELS}[\\s\\S]*npm run models`));
  });

  it("nothing named: the first .gguf in the models folders, in order; a named one by file name or path; 'none' is none", () => {
    const a = tempDir();
    const b = tempDir();
    writeFileSync(join(b, "z.gguf"), "x");
    writeFileSync(join(b, "m.gguf"), "x");
    copyFileSync(join(b, "m.gguf"), join(a, "readme.txt"));
    process.env.CITEFLOW_MODELS = `${a}:${b}`;
    process.env.CITEFLOW_MODELS_HOME = tempDir();
    delete process.env.CITEFLOW_CHAT_MODEL;
    expect(choose(none)).toEqual({ kind: "local", path: join(b, "m.gguf") });
    process.env.CITEFLOW_CHAT_MODEL = "z";
    expect(choose(none)).toEqual({ kind: "local", path: join(b, "z.gguf") });
    expect(choose({ model: join(b, "z.gguf"), baseUrl: "" })).toEqual({ kind: "local", path: join(b, "z.gguf") });
    process.env.CITEFLOW_CHAT_MODEL = "none";
    expect(choose(none).kind).toBe("none");
    process.env.CITEFLOW_CHAT_MODEL = "hf:acme/repo/model.gguf";
    expect(choose(none)).toEqual({ kind: "hub", uri: "hf:acme/repo/model.gguf" });
  });

  it("a name that is no local file is a server's model; a .gguf that is missing is an error naming where it looked", () => {
    process.env.CITEFLOW_MODELS = tempDir();
    process.env.CITEFLOW_MODELS_HOME = tempDir();
    process.env.OPENAI_BASE_URL = "http://127.0.0.1:9/v1";
    process.env.CITEFLOW_CHAT_MODEL = "llama3.1";
    expect(choose(none)).toEqual({ kind: "http", model: "llama3.1", baseUrl: "http://127.0.0.1:9/v1" });
    expect(() => choose({ model: "missing.gguf", baseUrl: "" })).toThrow(new RegExp(`${process.env.CITEFLOW_MODELS}/missing\\.gguf`));
  });

  it("base+adapter: a LoRA adapter by id (its folder's adapter.gguf) or path; nothing named → Citeflow's adapter, only for the base and the nodes it was trained on", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "gemma-3-270m-q4_k_m.gguf"), "x");
    mkdirSync(join(dir, "acme", "my-lora"), { recursive: true });
    writeFileSync(join(dir, "acme", "my-lora", "adapter.gguf"), "x");
    process.env.CITEFLOW_MODELS = dir;
    process.env.CITEFLOW_MODELS_HOME = tempDir();
    delete process.env.CITEFLOW_CHAT_MODEL;
    const base = join(dir, "gemma-3-270m-q4_k_m.gguf");
    const mine = { name: "acme/my-lora", path: join(dir, "acme", "my-lora", "adapter.gguf") };
    expect(choose({ model: "gemma-3-270m-q4_k_m+acme/my-lora", baseUrl: "" })).toEqual({ kind: "local", path: base, adapter: mine });
    expect(choose({ model: `gemma-3-270m-q4_k_m+${mine.path}`, baseUrl: "" })).toEqual({ kind: "local", path: base, adapter: { ...mine, name: mine.path } });
    // A missing adapter, or an adapter on a name that is no local file, is an error naming where it looked.
    expect(() => choose({ model: "gemma-3-270m-q4_k_m+acme/none", baseUrl: "" })).toThrow(new RegExp(`${dir}/acme/none/adapter\\.gguf[\\s\\S]*citeflow train lm`));
    expect(() => choose({ model: "llama3.1+acme/my-lora", baseUrl: "" })).toThrow(/llama3\.1\+acme\/my-lora/);
    // A file whose name holds a "+" is that file.
    writeFileSync(join(dir, "c++model.gguf"), "x");
    expect(choose({ model: "c++model", baseUrl: "" })).toEqual({ kind: "local", path: join(dir, "c++model.gguf") });
    rmSync(join(dir, "c++model.gguf"));
    // Nothing named: the shipped adapter goes on the base its training.json names, and on no other.
    expect(choose(none)).toEqual({ kind: "local", path: base });
    const shipped = join(dir, "citeflow", "lm-gemma3-270m-scifact");
    mkdirSync(shipped, { recursive: true });
    writeFileSync(join(shipped, "adapter.gguf"), "x");
    writeFileSync(join(shipped, "training.json"), JSON.stringify({ base: "gemma-3-270m-q4_k_m.gguf" }));
    const withShipped = { kind: "local", path: base, adapter: { name: "citeflow/lm-gemma3-270m-scifact", path: join(shipped, "adapter.gguf") } };
    expect(choose(none)).toEqual(withShipped);
    // ... and only on the nodes whose rows it trained on: a training.json that counts no rows by
    // node is an adapter trained on answers alone, so a search query or a verdict gets the base.
    expect(choose(none, "query.enrich")).toEqual({ kind: "local", path: base });
    expect(choose(none, "verify.llm")).toEqual({ kind: "local", path: base });
    writeFileSync(join(shipped, "training.json"), JSON.stringify({ base: "gemma-3-270m-q4_k_m.gguf", counts: { rows_by_node: { "generate.answer": 300, "verify.llm": 200 } } }));
    expect(choose(none, "verify.llm")).toEqual(withShipped);
    expect(choose(none, "query.enrich")).toEqual({ kind: "local", path: base });
    // The shipped claims adapter goes on claims.extract; the answers' adapter, listed first, keeps its nodes.
    const claims = join(dir, "citeflow", "lm-gemma3-270m-scifact-claims");
    mkdirSync(claims, { recursive: true });
    writeFileSync(join(claims, "adapter.gguf"), "x");
    writeFileSync(join(claims, "training.json"), JSON.stringify({ base: "gemma-3-270m-q4_k_m.gguf", counts: { rows_by_node: { "claims.extract": 197, "generate.answer": 1 } } }));
    expect(choose(none, "claims.extract")).toEqual({ kind: "local", path: base, adapter: { name: "citeflow/lm-gemma3-270m-scifact-claims", path: join(claims, "adapter.gguf") } });
    expect(choose(none, "generate.answer")).toEqual(withShipped);
    rmSync(claims, { recursive: true });
    expect(choose(none, "claims.extract")).toEqual({ kind: "local", path: base });
    // The shipped judge's adapter goes on verify.llm once the answers' adapter was trained on answers alone.
    const judge = join(dir, "citeflow", "lm-gemma3-270m-scifact-judge");
    mkdirSync(judge, { recursive: true });
    writeFileSync(join(judge, "adapter.gguf"), "x");
    writeFileSync(join(judge, "training.json"), JSON.stringify({ base: "gemma-3-270m-q4_k_m.gguf", counts: { rows_by_node: { "verify.llm": 518 } } }));
    expect(choose(none, "verify.llm")).toEqual(withShipped);
    writeFileSync(join(shipped, "training.json"), JSON.stringify({ base: "gemma-3-270m-q4_k_m.gguf" }));
    expect(choose(none, "verify.llm")).toEqual({ kind: "local", path: base, adapter: { name: "citeflow/lm-gemma3-270m-scifact-judge", path: join(judge, "adapter.gguf") } });
    expect(choose(none, "generate.answer")).toEqual(withShipped);
    rmSync(judge, { recursive: true });
    // Named, an adapter goes on every node.
    expect(choose({ model: "gemma-3-270m-q4_k_m+citeflow/lm-gemma3-270m-scifact", baseUrl: "" }, "query.enrich")).toEqual(withShipped);
    writeFileSync(join(shipped, "training.json"), JSON.stringify({ base: "another.gguf" }));
    expect(choose(none)).toEqual({ kind: "local", path: base });
    // Naming the base alone asks for the base alone.
    process.env.CITEFLOW_CHAT_MODEL = "gemma-3-270m-q4_k_m";
    expect(choose(none)).toEqual({ kind: "local", path: base });
  });
});
