/** Two texts word by word: what B removed struck through, what it added marked. */
import { wordDiff } from "../feedback";

export function WordDiff({ a, b }: { a: string; b: string }) {
  return (
    <div className="cf-diff-text">{wordDiff(a, b).map((p, i) => (p.op === "same" ? <span key={i}>{p.text}</span> : p.op === "ins" ? <ins key={i}>{p.text}</ins> : <del key={i}>{p.text}</del>))}</div>
  );
}
