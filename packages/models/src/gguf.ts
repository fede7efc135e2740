import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** The most tensors and metadata entries a GGUF file may claim (real models have a few thousand at most). */
export const GGUF_LIMITS = { tensors: 1_000_000, metadata: 100_000 } as const;

/**
 * Checks a GGUF file's header before llama.cpp reads it: a regular file, the GGUF magic, a known
 * version, and tensor and metadata counts that are sane and fit the file (each tensor's entry takes
 * at least 24 bytes, each metadata entry at least 12). A file that claims 2^62 tensors made the loader
 * grow memory without bound; here it is an error naming the file and the count.
 */
export function checkGgufHeader(path: string): void {
  const fd = openSync(path, "r");
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${path} is not a regular file`);
    const head = Buffer.alloc(24);
    const n = readSync(fd, head, 0, 24, 0);
    if (n < 24 || head.toString("latin1", 0, 4) !== "GGUF") throw new Error(`${path} is not a GGUF file (it does not start with "GGUF")`);
    const version = head.readUInt32LE(4);
    if (version < 2 || version > 3) throw new Error(`${path}: GGUF version ${version}; llama.cpp reads versions 2 and 3`);
    const tensors = head.readBigUInt64LE(8);
    const metadata = head.readBigUInt64LE(16);
    const size = BigInt(st.size);
    if (tensors > BigInt(GGUF_LIMITS.tensors) || tensors * 24n > size) throw new Error(`${path} claims ${tensors} tensors in ${st.size} bytes: a damaged or hostile file, not loaded`);
    if (metadata > BigInt(GGUF_LIMITS.metadata) || metadata * 12n > size) throw new Error(`${path} claims ${metadata} metadata entries in ${st.size} bytes: a damaged or hostile file, not loaded`);
  } finally {
    closeSync(fd);
  }
}
