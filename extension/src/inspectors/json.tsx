/** Raw JSON of any value; optionally editable (edit an intermediate value, re-run downstream). */
import { useState } from "react";
import { trans } from "../i18n";

export function JsonView({ value, onApply }: { value: unknown; onApply?: (value: unknown) => void }) {
  const [draft, setDraft] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const text = JSON.stringify(value, null, 2) ?? "undefined";
  if (draft === undefined) {
    return (
      <div className="cf-json">
        {onApply && (
          <button className="cf-button" onClick={() => setDraft(text)}>
            {trans.__("Edit value")}
          </button>
        )}
        <pre>{text.length > 200_000 ? text.slice(0, 200_000) + "\n…" : text}</pre>
      </div>
    );
  }
  return (
    <div className="cf-json">
      <textarea className="cf-json-edit" aria-label={trans.__("Edited value (JSON)")} value={draft} onChange={(e) => setDraft(e.target.value)} rows={Math.min(30, draft.split("\n").length + 1)} />
      {error && <p className="cf-error">{error}</p>}
      <button
        className="cf-button cf-primary"
        onClick={() => {
          try {
            onApply?.(JSON.parse(draft));
            setDraft(undefined);
            setError(undefined);
          } catch (e) {
            setError(trans.__("Not JSON: %1", (e as Error).message));
          }
        }}
      >
        {trans.__("Apply and re-run downstream")}
      </button>{" "}
      <button className="cf-button" onClick={() => setDraft(undefined)}>
        {trans.__("Cancel")}
      </button>
    </div>
  );
}
