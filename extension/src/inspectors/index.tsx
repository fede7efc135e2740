/** Picks the inspector for a value by its shape; raw JSON for everything else (and on request). */
import type { Answer, Claim, CorrectionView, Passage, Verdict } from "@citeflow/core/browser";
import { useState } from "react";
import { trans } from "../i18n";
import { AnswerView } from "./answer";
import { JsonView } from "./json";
import { PassagesView } from "./passages";
import { VerdictsView } from "./verdicts";
import type { ShowPage } from "./evidence";
import { WordDiff } from "./worddiff";

export { AnswerView, JsonView, PassagesView, VerdictsView, WordDiff };

const obj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
export const isPassage = (v: unknown): v is Passage => obj(v) && typeof v.id === "string" && typeof v.text === "string" && typeof v.title === "string";
export const isPassages = (v: unknown): v is Passage[] => Array.isArray(v) && v.length > 0 && v.every(isPassage);
export const isAnswer = (v: unknown): v is Answer => obj(v) && typeof v.text === "string" && obj(v.citations) && Array.isArray(v.allowed);
export const isVerdicts = (v: unknown): v is Verdict[] => Array.isArray(v) && v.length > 0 && v.every((x) => obj(x) && typeof x.claimId === "string" && typeof x.label === "string");
export const isClaims = (v: unknown): v is Claim[] =>
  Array.isArray(v) && v.length > 0 && v.every((x) => obj(x) && typeof x.id === "string" && typeof x.text === "string" && Array.isArray(x.passageIds));

export interface ValueContext {
  /** The question the run answered (for highlighting). */
  query?: string;
  /** Passages the value refers to (an answer's sources). */
  passages?: Passage[];
  claims?: Claim[];
  onApply?: (value: unknown) => void;
  onCorrectVerdict?: (v: Verdict, label: string) => void;
  /** Corrections recorded on this node in the run shown: a corrected verdict shows its new label. */
  corrections?: CorrectionView[];
  onRelevance?: (passageId: string, relevant: boolean) => void;
  onEditAnswer?: (text: string) => void;
  /** Renders a PDF page with a verdict's evidence marked. */
  onShowPage?: ShowPage;
  /** Passage texts in the value are cut to this many characters (a notebook output), if set. */
  preview?: number | undefined;
}

export function ValueView({ value, ctx = {} }: { value: unknown; ctx?: ValueContext }) {
  const [raw, setRaw] = useState(false);
  const [focus, setFocus] = useState<string | undefined>();
  const rich = isPassages(value) || isAnswer(value) || isVerdicts(value) || isClaims(value);
  return (
    <div className="cf-value">
      {rich && (
        <label className="cf-raw-toggle">
          <input type="checkbox" checked={raw} onChange={(e) => setRaw(e.target.checked)} /> {trans.__("raw JSON")}
        </label>
      )}
      {raw || !rich ? (
        <JsonView value={value} {...(ctx.onApply ? { onApply: ctx.onApply } : {})} />
      ) : isPassages(value) ? (
        <PassagesView passages={value} {...(ctx.query ? { query: ctx.query } : {})} {...(ctx.onRelevance ? { onRelevance: ctx.onRelevance } : {})} preview={ctx.preview} />
      ) : isAnswer(value) ? (
        <>
          <AnswerView answer={value} onCite={setFocus} />
          {ctx.onEditAnswer && <AnswerEdit text={value.text} onSave={ctx.onEditAnswer} />}
          {ctx.passages && (
            <>
              <h4>{trans.__("Sources")}</h4>
              <PassagesView passages={ctx.passages} {...(ctx.query ? { query: ctx.query } : {})} {...(focus ? { focus } : {})} preview={ctx.preview} />
            </>
          )}
        </>
      ) : isVerdicts(value) ? (
        <VerdictsView
          verdicts={value}
          {...(ctx.claims ? { claims: ctx.claims } : {})}
          {...(ctx.onCorrectVerdict ? { onCorrect: ctx.onCorrectVerdict } : {})}
          {...(ctx.corrections ? { corrections: ctx.corrections } : {})}
          passages={ctx.passages}
          onShowPage={ctx.onShowPage}
        />
      ) : (
        <ul className="cf-claims">
          {(value as Claim[]).map((c) => (
            <li key={c.id}>
              <span className="cf-mono">{c.id}</span> {c.text} <span className="cf-mono">[{c.passageIds.join(", ")}]</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function AnswerEdit({ text, onSave }: { text: string; onSave: (text: string) => void }) {
  const [draft, setDraft] = useState<string | undefined>();
  if (draft === undefined)
    return (
      <button className="cf-button" onClick={() => setDraft(text)}>
        {trans.__("Correct the answer")}
      </button>
    );
  return (
    <div>
      <textarea className="cf-json-edit" aria-label={trans.__("Corrected answer")} value={draft} rows={6} onChange={(e) => setDraft(e.target.value)} />
      <button className="cf-button cf-primary" onClick={() => (onSave(draft), setDraft(undefined))}>
        {trans.__("Record correction")}
      </button>
    </div>
  );
}
