import { readFileSync } from "node:fs";
import { openPdf, textOf } from "./extract.js";
import { sha256 } from "./reader.js";

export interface EvidencePageRequest {
  /** The PDF, as ingested (`metadata.path` of its passages). */
  path: string;
  /** Its content hash at ingest (`metadata.sha256`): a file changed since is refused, as its offsets no longer hold. */
  sha256?: string;
  /** The span, in characters of the document's text (passage `metadata.start` + the span in the passage). */
  start: number;
  end: number;
  /** Pixels per PDF point (default 1.5). */
  scale?: number;
}

export interface EvidencePage {
  page: number;
  /** The page as PNG, the span's lines marked. */
  png: Uint8Array;
  width: number;
  height: number;
  /** The marked boxes, in the image's pixels: [x, y, width, height]. */
  boxes: Array<[number, number, number, number]>;
}

/**
 * The page a span of a PDF's text sits on, rendered by pdf.js, with the span's lines marked: what
 * "open at page" shows beside a verdict. The layout is read again from the file (the same code
 * as at ingest), so offsets find their lines; within a line, the span's part is placed by its share
 * of the line's characters.
 */
export async function renderEvidencePage(r: EvidencePageRequest): Promise<EvidencePage> {
  if (!/\.pdf$/i.test(r.path)) throw new Error(`${r.path}: not a PDF`);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(r.path));
  } catch (e) {
    throw new Error(`${r.path}: cannot be read (${(e as Error).message}); was it moved since it was ingested?`, { cause: e });
  }
  if (r.sha256 && sha256(bytes) !== r.sha256) throw new Error(`${r.path} changed since it was ingested: ingest it again to place its passages`);
  const pdf = await openPdf(bytes);
  try {
    // The layout is read from the same open document that renders the page.
    const text = await textOf(pdf);
    const lines = text.lines.filter((l) => l.end > r.start && l.start < r.end);
    if (lines.length === 0) throw new Error(`${r.path}: characters ${r.start}–${r.end} are not in its text`);
    const page = lines[0]!.page;
    const scale = r.scale ?? 1.5;
    const p = await pdf.getPage(page);
    const viewport = p.getViewport({ scale });
    const { canvas, context } = (pdf.canvasFactory as CanvasFactory).create(Math.ceil(viewport.width), Math.ceil(viewport.height));
    await p.render({ canvasContext: context, viewport, canvas } as unknown as Parameters<typeof p.render>[0]).promise;
    const boxes: EvidencePage["boxes"] = lines
      .filter((l) => l.page === page)
      .map((l) => {
        const [x0, y0, x1, y1] = l.box;
        const len = Math.max(1, l.end - l.start);
        const from = x0 + ((x1 - x0) * Math.max(0, r.start - l.start)) / len;
        const to = x0 + ((x1 - x0) * Math.min(len, r.end - l.start)) / len;
        const [ax, ay] = viewport.convertToViewportPoint(from, y1) as [number, number];
        const [bx, by] = viewport.convertToViewportPoint(to, y0) as [number, number];
        return [Math.min(ax, bx), Math.min(ay, by), Math.abs(bx - ax), Math.abs(by - ay)];
      });
    context.fillStyle = "rgba(255, 193, 7, 0.38)";
    for (const [x, y, w, h] of boxes) context.fillRect(x, y, w, h);
    return { page, png: new Uint8Array(canvas.toBuffer("image/png")), width: canvas.width, height: canvas.height, boxes };
  } finally {
    await pdf.destroy();
  }
}

/** pdf.js's canvas factory in Node (@napi-rs/canvas), as far as it is used here. */
interface CanvasFactory {
  create(
    width: number,
    height: number,
  ): {
    canvas: { width: number; height: number; toBuffer(mime: "image/png"): Uint8Array };
    context: { fillStyle: string; fillRect(x: number, y: number, w: number, h: number): void };
  };
}
