import type { LlamaContext, LlamaContextSequence, Token } from "node-llama-cpp";

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
 * The log-probability of each continuation after the prompt, from its first token that not every
 * continuation shares (the shared start adds the same to each), summed over its tokens. A
 * sequence holding the prompt reads each continuation (whole blocks of what it shares with the
 * last one are kept, as for any prompt); llama.cpp's distribution before each token gives that
 * token's probability, and the distribution where the continuations part is read once. A token
 * outside what llama.cpp returns counts as probability 1e-9. `reused`: the tokens the sequence
 * already held for the first continuation.
 */
export async function scoreContinuations(sequence: LlamaContextSequence, prompt: readonly Token[], continuations: readonly (readonly Token[])[]): Promise<{ scores: number[]; reused: number }> {
  if (continuations.some((c) => c.length === 0)) throw new Error("a choice to score is empty");
  const shortest = Math.min(...continuations.map((c) => c.length));
  let shared = 0; // every continuation keeps at least one token to score
  while (shared < shortest - 1 && continuations.every((c) => c[shared] === continuations[0]![shared])) shared++;
  const base = [...prompt, ...continuations[0]!.slice(0, shared)];
  const scores: number[] = [];
  let reused: number | undefined;
  let parting: Map<Token, number> | undefined; // the distribution after `base`
  const logp = (dist: Map<Token, number> | undefined, t: Token) => Math.log(dist?.get(t) ?? 1e-9);
  for (const tokens of continuations) {
    const tail = tokens.slice(shared);
    if (parting && tail.length === 1) {
      scores.push(logp(parting, tail[0]!));
      continue;
    }
    // Reuse stops before base's last token: the distribution after it scores the tail's first token.
    await alignReuse(sequence, base);
    const from = sequence.nextTokenIndex;
    reused ??= from;
    // Item i is token from + i; the distribution after item at(j) is that of tail[j]. The last tail token need not be read.
    const at = (j: number) => base.length - 1 + j - from;
    const input = [...base.slice(from), ...tail.slice(0, -1)];
    const firstAsked = at(parting ? 1 : 0);
    const out = await sequence.controlledEvaluate(input.map((t, i) => (i >= firstAsked ? ([t, { generateNext: { probabilities: true } }] as const) : t)));
    parting ??= out[at(0)]?.next.probabilities;
    let sum = logp(parting, tail[0]!);
    for (let j = 1; j < tail.length; j++) sum += logp(out[at(j)]?.next.probabilities, tail[j]!);
    scores.push(sum);
  }
  return { scores, reused: reused ?? 0 };
}
