/** A verdict's evidence: the sentence marked inside its passage, its page, and (in the editor) the page itself. */
import { evidenceInDocument, type PageImage, type Passage, type Verdict } from "@citeflow/core/browser";
import { useState } from "react";
import { trans } from "../i18n";

export type ShowPage = (request: { path: string; sha256?: string; start: number; end: number }) => Promise<PageImage>;

type Evidence = NonNullable<Verdict["evidence"]>;

/** Characters of context shown either side of the sentence. */
const CONTEXT = 240;

export function EvidenceSpan({ evidence: e, passage, onShowPage }: { evidence: Evidence; passage: Passage | undefined; onShowPage?: ShowPage | undefined }) {
  const [image, setImage] = useState<PageImage | string>();
  const title = trans.__("closest evidence sentence (similarity %1)", e.score.toFixed(3));
  const placed = passage && e.start !== undefined && e.end !== undefined && passage.text.slice(e.start, e.end) === e.sentence;
  const path = passage?.metadata.path;
  const where = placed ? evidenceInDocument(e, passage) : undefined;
  const pdf = where?.path ? { ...where, path: where.path } : undefined;
  const canShow = onShowPage && pdf;
  const show = async () => {
    try {
      setImage(await onShowPage!(pdf!));
    } catch (err) {
      setImage((err as Error).message);
    }
  };
  return (
    <div className="cf-evidence-box">
      {placed ? (
        <blockquote className="cf-evidence cf-in-passage" title={title}>
          {e.start! > CONTEXT ? "…" : ""}
          {passage.text.slice(Math.max(0, e.start! - CONTEXT), e.start)}
          <mark className="cf-evidence-span" data-start={e.start} data-end={e.end}>
            {e.sentence}
          </mark>
          {passage.text.slice(e.end, e.end! + CONTEXT)}
          {e.end! + CONTEXT < passage.text.length ? "…" : ""}
        </blockquote>
      ) : (
        <blockquote className="cf-evidence" title={title}>
          {e.sentence}
        </blockquote>
      )}
      {(e.page !== undefined || canShow) && (
        <div className="cf-evidence-where">
          {e.page !== undefined && <span className="cf-page">{trans.__("page %1", String(e.page))}</span>}
          {typeof path === "string" && <span className="cf-mono"> {path.split("/").at(-1)}</span>}{" "}
          {canShow && (
            <button className="cf-mini" onClick={() => void (image && typeof image !== "string" ? setImage(undefined) : show())}>
              {image && typeof image !== "string" ? trans.__("Hide page") : trans.__("Open at page %1", String(e.page ?? ""))}
            </button>
          )}
        </div>
      )}
      {typeof image === "string" && <p className="cf-error">{image}</p>}
      {image && typeof image !== "string" && (
        <img className="cf-page-image" src={`data:image/png;base64,${image.png}`} width={image.width / 1.5} alt={trans.__("Page %1 of %2, the evidence marked", String(image.page), String(path))} />
      )}
    </div>
  );
}
