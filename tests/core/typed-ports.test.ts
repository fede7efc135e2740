import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** Compiles a file as a node author's project would (strict), returning every diagnostic. */
function diagnostics(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start!).line + 1}: ` : ""}${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
}

describe("a node's run is typed by its port declarations", () => {
  it("gives run its inputs' types and checks what it returns against its outputs, at compile time", () => {
    // Each @ts-expect-error in the fixture marks a mistake the compiler must catch (a missing
    // input, an optional input used as present, a wrong or missing output); an unused one, or
    // any other error, is reported here.
    expect(diagnostics(fileURLToPath(new URL("../fixtures/typed-node.ts", import.meta.url)))).toEqual([]);
  }, 60_000);
});
