/** A damaged store is an error in the user's terms: which store, LanceDB's cause, what to do; never LanceDB's build paths. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LanceStore } from "@citeflow/retrieval";
import { tempDir } from "../helpers.js";

describe("store errors", () => {
  it("a store whose table files were overwritten names the store and what to do, without Rust source paths", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "passages.lance", "_versions"), { recursive: true });
    writeFileSync(join(dir, "passages.lance", "_versions", "1.manifest"), "junk\n");
    const error = await (async () => (await LanceStore.open(dir)).lexical("aspirin", 3))().catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(new RegExp(`^store ${dir} could not be read or written \\(LanceDB: .*\\); if its folder was changed by hand`));
    expect((error as Error).message).not.toMatch(/\.rs:\d+|Caused by|cargo/);
  });
});
