/** No module imports itself through others: the relative imports of every source folder, types included, form no circle. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const FROM = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']|\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Each file's relative imports, as files. */
function importGraph(files: string[], read: (f: string) => string): Map<string, string[]> {
  const known = new Set(files);
  const target = (from: string, spec: string) => {
    const base = resolve(dirname(from), spec).replace(/\.js$/, "");
    return [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((f) => known.has(f));
  };
  return new Map(files.map((f) => [f, [...read(f).matchAll(FROM)].map((m) => target(f, m[1] ?? m[2]!)).filter((t): t is string => t !== undefined)]));
}

/** The circles among the files (strongly connected components of more than one file, or a file importing itself). */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const at = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    at.set(v, index);
    low.set(v, index++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!at.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, at.get(w)!));
    }
    if (low.get(v) === at.get(v)) {
      const scc: string[] = [];
      let w: string;
      do scc.push((w = stack.pop()!));
      while (w !== v);
      if (scc.length > 1 || graph.get(v)!.includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!at.has(v)) visit(v);
  return out;
}

describe("import circles", () => {
  it("are found, type-only imports and re-exports included", () => {
    const files = ["/p/a.ts", "/p/b.ts", "/p/c.ts", "/p/d.ts"];
    const code: Record<string, string> = {
      "/p/a.ts": `import { b } from "./b.js";\n`,
      "/p/b.ts": `import type { C } from "./c.js";\n`,
      "/p/c.ts": `export { a } from "./a.js";\nimport { d } from "./d.js";\n`,
      "/p/d.ts": `const x = await import("./missing.js");\n`,
    };
    expect(circles(importGraph(files, (f) => code[f]!))).toEqual([["/p/a.ts", "/p/b.ts", "/p/c.ts"]]);
  });

  it("there are none in the sources", () => {
    const root = process.cwd();
    const dirs = [...readdirSync(join(root, "packages")).map((p) => join(root, "packages", p, "src")), join(root, "kernel", "src"), join(root, "extension", "src")];
    const files = dirs.flatMap((d) => (statSync(d, { throwIfNoEntry: false })?.isDirectory() ? sources(d) : []));
    expect(files.length).toBeGreaterThan(100);
    expect(circles(importGraph(files, (f) => readFileSync(f, "utf8"))).map((c) => c.map((f) => relative(root, f)))).toEqual([]);
  });
});
