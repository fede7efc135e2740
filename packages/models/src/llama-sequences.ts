import type { ControlledEvaluateInputItem, LlamaContext, LlamaContextSequence, Token } from "node-llama-cpp";

/** How many leading tokens two token lists share. */
function sharedPrefix(a: readonly Token[], b: readonly Token[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * Tokens are read in blocks of this many from the start of the sequence. llama.cpp's CPU kernels
 * give bit-for-bit the same results only for the same batches, so a call that reuses what a
 * sequence holds keeps it up to a block boundary and reads on from there: every prompt is then
 * read in the same blocks, reused or not, and answers with reuse are the answers without it.
 */
export const REUSE_BLOCK = 128;

/** Keep of the sequence only whole blocks of the part it shares with the prompt; LlamaCompletion and LlamaChat read on from there. */
export async function alignReuse(sequence: LlamaContextSequence, prompt: readonly Token[]): Promise<void> {
  // The prompt's last token is always read again (its logits start the answer).
  const shared = sharedPrefix(sequence.contextTokens, prompt.slice(0, -1));
  const keep = shared - (shared % REUSE_BLOCK);
  if (keep < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
}

/**
 * Hands out the context's sequences one call at a time; callers past the count wait their turn.
 * A sequence keeps the tokens it last evaluated, and llama.cpp reads again only what follows the
 * part a new prompt shares with them; so a call takes the free sequence whose tokens share the
 * longest start with its prompt (OpenScholar's feedback and edits repeat passages, question and
 * answer), and the one used last when it shares none.
 */
export class SequencePool {
  private readonly free: LlamaContextSequence[];
  private readonly waiting: Array<(s: LlamaContextSequence) => void> = [];
  constructor(context: LlamaContext, count: number) {
    this.free = Array.from({ length: count }, () => context.getSequence());
  }
  private take(prompt: readonly Token[] | undefined): LlamaContextSequence | undefined {
    if (this.free.length === 0) return undefined;
    let best = this.free.length - 1;
    if (prompt) {
      let most = -1;
      for (let i = this.free.length - 1; i >= 0; i--) {
        const n = sharedPrefix(this.free[i]!.contextTokens, prompt);
        if (n > most) [most, best] = [n, i];
      }
    }
    return this.free.splice(best, 1)[0];
  }
  async use<T>(prompt: readonly Token[] | undefined, fn: (s: LlamaContextSequence) => Promise<T>): Promise<T> {
    const seq = this.take(prompt) ?? (await new Promise<LlamaContextSequence>((r) => this.waiting.push(r)));
    try {
      return await fn(seq);
    } finally {
      const next = this.waiting.shift();
      if (next) next(seq);
      else this.free.push(seq);
    }
  }
}

/**
 * The log-probability of each continuation after the prompt when the answer is held to the
 * continuations, as a grammar would hold it: where they part, the model's probabilities of the
 * tokens they go on with, renormalised over those tokens; where only one can go on, probability 1.
 * So the scores' exponentials sum to 1, and the part each writes alone (the `"}` after "true")
 * does not count. A sequence reads the prompt and each parting point's prefix (whole blocks of what
 * it already holds are kept, as for any prompt). `reused`: the tokens it held for the first.
 */
export async function scoreContinuations(sequence: LlamaContextSequence, prompt: readonly Token[], continuations: readonly (readonly Token[])[]): Promise<{ scores: number[]; reused: number }> {
  const key = (ts: readonly Token[]) => ts.join(",");
  for (const [i, c] of continuations.entries()) {
    if (c.length === 0) throw new Error("a choice to score is empty");
    const other = continuations.findIndex((d, j) => j !== i && d.length >= c.length && key(d.slice(0, c.length)) === key(c));
    if (other >= 0) throw new Error(`choice ${i + 1} is the start of choice ${other + 1} (or the same): each must differ from the others before it ends`);
  }
  const parted = new Map<string, Map<Token, number>>(); // prefix → the distribution after it
  let reused: number | undefined;
  const after = async (prefix: readonly Token[]): Promise<Map<Token, number>> => {
    const k = key(prefix);
    let dist = parted.get(k);
    if (!dist) {
      const all = [...prompt, ...prefix];
      await alignReuse(sequence, all);
      const from = sequence.nextTokenIndex;
      reused ??= from;
      const out = await sequence.controlledEvaluate(all.slice(from).map((t, i, rest) => (i === rest.length - 1 ? ([t, { generateNext: { probabilities: true } }] as const) : t)));
      dist = out.at(-1)?.next.probabilities ?? new Map();
      parted.set(k, dist);
    }
    return dist;
  };
  const scores: number[] = [];
  for (const c of continuations) {
    let sum = 0;
    for (let j = 0; j < c.length; j++) {
      const prefix = c.slice(0, j);
      const next = new Set(continuations.filter((d) => key(d.slice(0, j)) === key(prefix)).map((d) => d[j]!));
      if (next.size < 2) continue;
      const dist = await after(prefix);
      const total = [...next].reduce((n, t) => n + (dist.get(t) ?? 0), 0);
      sum += Math.log(Math.max(dist.get(c[j]!) ?? 0, 1e-30) / Math.max(total, 1e-30));
    }
    scores.push(sum);
  }
  return { scores, reused: reused ?? 0 };
}

/**
 * The log-probability of each token of each continuation, as the model would write it after the
 * prompt (not held to the others: the raw probability of that text). A sequence reads the prompt
 * once (whole blocks of what it holds are kept) and each continuation after it.
 */
export async function continuationLogprobs(sequence: LlamaContextSequence, prompt: readonly Token[], continuations: readonly (readonly Token[])[]): Promise<number[][]> {
  const out: number[][] = [];
  for (const c of continuations) {
    if (c.length === 0) throw new Error("a continuation to score is empty");
    await alignReuse(sequence, prompt);
    const from = sequence.nextTokenIndex;
    const all = [...prompt, ...c.slice(0, -1)];
    // Each token from the prompt's last on asks for the distribution of the one after it.
    const items: ControlledEvaluateInputItem[] = all.slice(from).map((t, i) => (from + i >= prompt.length - 1 ? [t, { generateNext: { probabilities: true } }] : t));
    const evaluated = await sequence.controlledEvaluate(items);
    out.push(c.map((t, j) => Math.log(Math.max(evaluated[prompt.length - 1 + j - from]?.next.probabilities?.get(t) ?? 0, 1e-30))));
  }
  return out;
}
