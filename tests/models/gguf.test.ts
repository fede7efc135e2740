/** A GGUF file is checked before llama.cpp reads it: a hostile header is an error, not unbounded memory. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkGgufHeader, loadLocalChat } from "@citeflow/models";
import { tempDir } from "../helpers.js";
import { GEMMA } from "./local.js";

function gguf(version: number, tensors: bigint, metadata: bigint, size = 64): Buffer {
  const b = Buffer.alloc(size);
  b.write("GGUF", 0, "latin1");
  b.writeUInt32LE(version, 4);
  b.writeBigUInt64LE(tensors, 8);
  b.writeBigUInt64LE(metadata, 16);
  return b;
}

describe("GGUF header check", () => {
  it("the installed Gemma passes; a file claiming 2^62 tensors, a wrong magic, an unknown version or a folder is refused by name", async () => {
    expect(() => checkGgufHeader(GEMMA)).not.toThrow();
    const dir = tempDir();
    const cases: Array<[string, Buffer | undefined, RegExp]> = [
      ["huge.gguf", gguf(3, 1n << 62n, 1n), /claims 4611686018427387904 tensors in 64 bytes/],
      ["meta.gguf", gguf(3, 1n, 1n << 40n), /claims 1099511627776 metadata entries/],
      ["magic.gguf", Buffer.from("PK\x03\x04 not a model at all, a zip"), /not a GGUF file/],
      ["v9.gguf", gguf(9, 1n, 1n), /GGUF version 9/],
    ];
    for (const [name, bytes, why] of cases) {
      const path = join(dir, name);
      writeFileSync(path, bytes!);
      expect(() => checkGgufHeader(path), name).toThrow(why);
    }
    // Through the loader: refused before llama.cpp is asked.
    await expect(loadLocalChat(join(dir, "huge.gguf"))).rejects.toThrow(/claims 4611686018427387904 tensors/);
    expect(() => checkGgufHeader(dir)).toThrow(/EISDIR|not a regular file/);
  });
});
