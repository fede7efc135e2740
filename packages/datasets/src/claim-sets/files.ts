import { existsSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { readRegularFile } from "@citeflow/runstore";

/** A set's file: `path` itself when it is that file, else `<path>/<name>`; undefined when it is not there. */
export function setFile(path: string, name: string): string | undefined {
  if (!existsSync(path)) throw new Error(`${path}: no such file or folder`);
  if (statSync(path).isDirectory()) {
    const f = join(path, name);
    return existsSync(f) ? f : undefined;
  }
  return basename(path) === name ? path : undefined;
}

/** The files of a set found at `path` (a file of the set, or its folder), with the split each holds; refuses a path that holds none. */
export function setFiles(path: string, names: Record<string, string>, title: string): Array<{ file: string; split: string }> {
  const found = Object.entries(names).flatMap(([name, split]) => {
    const file = setFile(path, name);
    return file ? [{ file, split }] : [];
  });
  if (found.length === 0) throw new Error(`${path}: no ${title} file here (looked for ${Object.keys(names).join(", ")})`);
  return found;
}

/** A regular file's text (FIFOs and devices refused by name); an empty file is an error naming it. */
export function readSetFile(file: string): string {
  const text = readRegularFile(file);
  if (!text.trim()) throw new Error(`${file} is empty`);
  return text;
}
