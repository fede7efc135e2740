/** Two texts word by word: what B removed struck through, what it added marked; texts with little in common are shown apart. */
import { DIFFABLE, sharedWords, wordDiff } from "../feedback";
import { trans } from "../i18n";

export function WordDiff({ a, b }: { a: string; b: string }) {
  const parts = wordDiff(a, b);
  const shared = sharedWords(parts);
  if (shared < DIFFABLE)
    return (
      <div className="cf-diff-text cf-diff-apart" data-shared={shared.toFixed(2)}>
        <p className="cf-muted">{trans.__("Too different for a word diff (%1 % of their words in common): the two texts, one after the other.", Math.round(shared * 100))}</p>
        <p>
          <b>A</b> {a}
        </p>
        <p>
          <b>B</b> {b}
        </p>
      </div>
    );
  return <div className="cf-diff-text">{parts.map((p, i) => (p.op === "same" ? <span key={i}>{p.text}</span> : p.op === "ins" ? <ins key={i}>{p.text}</ins> : <del key={i}>{p.text}</del>))}</div>;
}
