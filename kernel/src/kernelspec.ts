import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface InstallOptions {
  /** Kernel name (folder under kernels/), default "citeflow". */
  name?: string;
  displayName?: string;
  /** Install into this prefix (`<prefix>/share/jupyter/kernels`), e.g. a virtualenv or /usr/local. */
  prefix?: string;
  /** Install into the user's Jupyter data folder (the default when no prefix is given). */
  user?: boolean;
}

/** Where kernelspecs go: `$JUPYTER_DATA_DIR/kernels` or `~/.local/share/jupyter/kernels` (user), or `<prefix>/share/jupyter/kernels`. */
export function kernelsDir(o: InstallOptions): string {
  if (o.prefix) return join(resolve(o.prefix), "share", "jupyter", "kernels");
  const data =
    process.env.JUPYTER_DATA_DIR || (process.platform === "darwin" ? join(homedir(), "Library", "Jupyter") : join(process.env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "jupyter"));
  return join(data, "kernels");
}

/** The kernel.json for this install: this Node binary running this package's kernel script. */
export function kernelspec(o: InstallOptions = {}): Record<string, unknown> {
  const script = join(dirname(dirname(fileURLToPath(import.meta.url))), "bin", "citeflow-kernel.js");
  return {
    argv: [process.execPath, script, "--config-path", "{connection_file}"],
    display_name: o.displayName ?? "TypeScript (Citeflow)",
    language: "typescript",
    interrupt_mode: "signal",
    metadata: { citeflow: { version: 1 } },
  };
}

export function installKernelspec(o: InstallOptions = {}): string {
  const name = o.name ?? "citeflow";
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`kernel name "${name}": use letters, digits, ".", "_" and "-"`);
  const dir = join(kernelsDir(o), name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "kernel.json"), JSON.stringify(kernelspec(o), null, 2) + "\n");
  return dir;
}

/** Returns the folder removed, or undefined when there was none. */
export function uninstallKernelspec(o: InstallOptions = {}): string | undefined {
  const dir = join(kernelsDir(o), o.name ?? "citeflow");
  if (!existsSync(join(dir, "kernel.json"))) return undefined;
  rmSync(dir, { recursive: true, force: true });
  return dir;
}
