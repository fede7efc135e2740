/**
 * Secrets never reach the run store, exports or printed errors. Two rules, both applied to all
 * text before it is written or shown:
 *
 * - by value: the values of the environment variables that hold credentials — names ending in
 *   KEY, TOKEN, SECRET or PASSWORD, and any named in $CITEFLOW_SECRETS — and secrets a host
 *   registers. A value is taken for a secret only when it looks like one (12+ characters with 40+
 *   bits of character entropy, or any value of a variable named in $CITEFLOW_SECRETS), so
 *   `MY_SORT_KEY=passages` never rewrites the word "passages" in stored data;
 * - by shape: anything shaped like a common credential, whatever variable (if any) it came from —
 *   OpenAI/Anthropic `sk-…`, AWS `AKIA…`, GitHub `ghp_…`/`github_pat_…`, Slack `xox?-…`, Hugging
 *   Face `hf_…`, Google `AIza…`, `Bearer …` headers and PEM private keys.
 */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD)$/i;

const SHAPES: RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{22,}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bhf_[A-Za-z0-9]{30,}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

/** Bits of Shannon entropy of a string's characters, times its length. */
function bits(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h * s.length;
}

/** Whether a credential variable's value looks like a secret rather than an ordinary word. */
export function looksSecret(value: string): boolean {
  return value.length >= 12 && bits(value) >= 40;
}

export function secretsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const marked = new Set((env.CITEFLOW_SECRETS ?? "").split(/[\s,]+/).filter(Boolean));
  return Object.entries(env)
    .filter(([k, v]) => typeof v === "string" && ((marked.has(k) && v.length >= 4) || (SECRET_NAME.test(k) && looksSecret(v))))
    .map(([, v]) => v as string);
}

export class Redactor {
  readonly #secrets: string[];
  constructor(secrets: Iterable<string>) {
    // Longest first, so a secret containing another is replaced whole.
    this.#secrets = [...new Set(secrets)].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  }
  redact(text: string): string {
    let out = text;
    for (const s of this.#secrets) {
      // Secrets also appear JSON-escaped inside serialised values.
      for (const form of new Set([s, JSON.stringify(s).slice(1, -1)])) if (out.includes(form)) out = out.split(form).join("[redacted]");
    }
    for (const re of SHAPES) out = out.replace(re, "[redacted]");
    return out;
  }
}
