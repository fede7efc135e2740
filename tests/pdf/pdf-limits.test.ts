/** A PDF that claims more pages than Citeflow reads is refused before any page is parsed, with the count and what to do. */
import { describe, expect, it } from "vitest";
import { extractPdf, PdfError } from "@citeflow/retrieval";

/** A PDF of `count` empty pages. */
function emptyPages(count: number): Uint8Array {
  const kids = Array.from({ length: count }, (_, i) => `${i + 3} 0 R`).join(" ");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${kids}] /Count ${count} >>`,
    ...Array.from({ length: count }, () => "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>"),
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

describe("PDF limits", () => {
  it("a file of 5,001 pages is refused by its count before any page is read", async () => {
    const error = await extractPdf(emptyPages(5_001)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfError);
    expect((error as PdfError).reason).toBe("too-long");
    expect((error as PdfError).message).toMatch(/^5001 pages; Citeflow reads PDFs of up to 5000 pages/);
    // A short one is read (no text: the usual error, not the limit).
    await expect(extractPdf(emptyPages(2))).rejects.toMatchObject({ reason: "no-text-layer" });
  });
});
