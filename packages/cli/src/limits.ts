import { readFileSync } from "node:fs";

/**
 * Node's WebAssembly (its HTTP parser, transformers.js) and the models run in this process reserve
 * far more address space than they use: under an address-space limit (`ulimit -v`) below about
 * 32 GiB they fail natively ("memory allocation of N bytes failed", "Cannot allocate Wasm memory")
 * with no word of why. Memory itself is bounded by what a process touches (`ulimit -m`, cgroups).
 */
export const ADDRESS_SPACE_NEEDED = 32 * 2 ** 30;

/** The warning for an address-space limit below what Citeflow needs, from /proc/self/limits' text; undefined without one. */
export function addressSpaceWarning(limits: string): string | undefined {
  const m = /^Max address space\s+(\S+)/m.exec(limits);
  if (!m || m[1] === "unlimited") return undefined;
  const bytes = Number(m[1]);
  if (!Number.isFinite(bytes) || bytes >= ADDRESS_SPACE_NEEDED) return undefined;
  return (
    `citeflow: this process may use at most ${(bytes / 2 ** 30).toFixed(1)} GiB of address space (ulimit -v); Node's WebAssembly and the in-process models ` +
    `reserve more than they use and stop with a native "memory allocation … failed" under ${ADDRESS_SPACE_NEEDED / 2 ** 30} GiB. Run with ulimit -v unlimited ` +
    `(bound memory with ulimit -m or a cgroup instead).`
  );
}

/** The warning for this process, on Linux; undefined elsewhere or without a limit. */
export function processAddressSpaceWarning(): string | undefined {
  try {
    return addressSpaceWarning(readFileSync("/proc/self/limits", "utf8"));
  } catch {
    return undefined;
  }
}
