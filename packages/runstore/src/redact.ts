/**
 * Secrets never reach the run store, exports or printed errors, and redaction never rewrites data.
 * Two rules, both applied to all text before it is written or shown:
 *
 * - by value: the values of the environment variables that hold credentials — names ending in
 *   KEY, TOKEN, SECRET or PASSWORD, and any named in $CITEFLOW_SECRETS; the header values in
 *   $OPENAI_CUSTOM_HEADERS — and secrets a host
 *   registers, only when the value is credential-like (`looksSecret`): never a word or a phrase,
 *   so `MY_SORT_KEY=passages` or a marked variable holding "with" rewrites nothing. A known secret
 *   is also found URL-encoded, in base64 (standard or URL-safe), spaced out character by character,
 *   reversed, and, for one of 20+ characters, by the ends a server echoes of it (its first 12
 *   characters, and its last 6 in a text that holds those). The search is linear in the text and
 *   in the secret's length (no regular expression is built from a secret);
 * - by shape: anything shaped like a common credential, whatever variable (if any) it came from —
 *   OpenAI/Anthropic `sk-…`, Stripe `sk_live_…`/`rk_test_…`, AWS `AKIA…` and 40-character secret
 *   keys, GitHub `ghp_…`/`github_pat_…`, GitLab `glpat-…`, npm `npm_…`, Slack `xox?-…`, Hugging
 *   Face `hf_…`, Google `AIza…`/`ya29.…`, JWTs, `Bearer …` and `Basic …` headers, PEM private
 *   keys, and the user name and password inside a URL (`https://[redacted]@host/`).
 */
import { headerLines } from "@citeflow/core";

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
  /\bBasic\s+[A-Za-z0-9+/]{8,}={0,2}/g,
  /\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /\bya29\.[A-Za-z0-9_-]{20,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/**
 * AWS secret access keys: 40 base64 characters with upper case, lower case and a digit (a hex SHA-1 has no upper case),
 * not a path (one starting with "/", or with three or more of them). Its lookaheads are tried only inside runs of 40+
 * such characters (`awsSecrets`): the same matches, without four lookaheads at every position of every text.
 */
const AWS_SECRET = /(?<![A-Za-z0-9/+])(?!\/)(?!(?:[A-Za-z0-9+]*\/){3})(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
const BASE64 = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+=") BASE64[c.charCodeAt(0)] = 1;

/**
 * The text with AWS_SECRET's matches redacted, found in one pass over its characters: each run of 40+ base64
 * characters (with "=") is searched alone. A run's neighbours are outside the class, so the pattern's lookarounds
 * see the same there as in the whole text. About four times faster than the pattern over the whole text (which was
 * 5 % of a question set's main thread).
 */
function awsSecrets(text: string): string {
  let out: string | undefined;
  let from = 0;
  let run = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    if (c < 128 && BASE64[c]) {
      run++;
      continue;
    }
    if (run >= 40) {
      const start = i - run;
      out = (out ?? "") + text.slice(from, start) + text.slice(start, i).replace(AWS_SECRET, "[redacted]");
      from = i;
    }
    run = 0;
  }
  return out === undefined ? text : out + text.slice(from);
}
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g;

/** Bits of Shannon entropy of a string's characters, times its length. */
function bits(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h * s.length;
}

/**
 * Whether a credential variable's value looks like a secret rather than ordinary text: no
 * whitespace, not a path, and 12+ characters with 40+ bits of character entropy — or, for a
 * variable the user marked in $CITEFLOW_SECRETS, 6+ characters of at least two kinds (letters and
 * digits, say), never a word alone.
 */
export function looksSecret(value: string, marked = false): boolean {
  if (/\s/.test(value) || value.startsWith("/")) return false;
  if (value.length >= 12 && bits(value) >= 40) return true;
  const kinds = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
  return marked && value.length >= 6 && kinds >= 2;
}

/** The user name and password inside a URL: `scheme://user:pw@host` → `scheme://[redacted]@host`. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;

export function secretsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const marked = new Set((env.CITEFLOW_SECRETS ?? "").split(/[\s,]+/).filter(Boolean));
  const named = Object.entries(env)
    .filter(([k, v]) => typeof v === "string" && (marked.has(k) || SECRET_NAME.test(k)) && looksSecret(v, marked.has(k)))
    .map(([, v]) => v as string);
  // The values of $OPENAI_CUSTOM_HEADERS (`Name: value` a line), which often carry a gateway's token.
  const headers = Object.values(headerLines(env.OPENAI_CUSTOM_HEADERS ?? "").headers).filter((v) => looksSecret(v, true));
  return [...named, ...headers];
}

/** The forms a known secret takes in text besides as written (which `spacedOut` finds): JSON-escaped, URL-encoded, base64, reversed. */
function forms(secret: string): string[] {
  const b64 = Buffer.from(secret).toString("base64");
  const all = [JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), b64, b64.replace(/=+$/, ""), Buffer.from(secret).toString("base64url"), [...secret].reverse().join("")];
  return [...new Set(all)].filter((f) => f !== secret);
}

/** The ends of a secret of 20+ characters a server's error echoes ("sk-live-0123…klmn"): its first 12 characters, and its last 6. */
const ends = (secret: string): [string, string] | undefined => (secret.length >= 20 ? [secret.slice(0, 12), secret.slice(-6)] : undefined);

/** Whitespace (as \s matches it) or a zero-width space. */
function isSpace(c: number): boolean {
  return (c >= 9 && c <= 13) || c === 32 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200b) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Where a known secret is in the text, as written or spaced out (whitespace or zero-width spaces
 * between its characters): [start, end) spans, added to `spans`. One pass of a Knuth–Morris–Pratt
 * search that steps over spaces, remembering where the last secret-length characters were.
 */
function spacedOut(text: string, secret: string, spans: Array<[number, number]>): void {
  const m = secret.length;
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && secret[i] !== secret[k]) k = fail[k - 1]!;
    if (secret[i] === secret[k]) k++;
    fail[i] = k;
  }
  const where = new Int32Array(m);
  for (let i = 0, k = 0, seen = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) continue;
    where[seen++ % m] = i;
    while (k > 0 && text[i] !== secret[k]) k = fail[k - 1]!;
    if (text[i] === secret[k]) k++;
    if (k === m) {
      spans.push([where[(seen - m) % m]!, i + 1]);
      k = 0;
    }
  }
}

/** The text with each span (merged where they overlap) replaced by [redacted]. */
function cutOut(text: string, spans: Array<[number, number]>): string {
  spans.sort((a, b) => a[0] - b[0]);
  let out = "";
  let from = 0;
  for (const [start, end] of spans) {
    if (end <= from) continue;
    out += start >= from ? `${text.slice(from, start)}[redacted]` : "";
    from = end;
  }
  return out + text.slice(from);
}

export class Redactor {
  readonly #secrets: string[];
  readonly #forms: string[];
  readonly #ends: Array<[string, string]>;
  constructor(secrets: Iterable<string>) {
    // Longest first, so a secret containing another is replaced whole. A registered secret too
    // short to tell from ordinary text (under 6 characters) is not searched for.
    this.#secrets = [...new Set(secrets)].filter((s) => s.length >= 6 && !/\s/.test(s)).sort((a, b) => b.length - a.length);
    this.#forms = [...new Set(this.#secrets.flatMap(forms))].filter((f) => f.length >= 6).sort((a, b) => b.length - a.length);
    this.#ends = this.#secrets.map(ends).filter((e) => e !== undefined);
  }
  redact(text: string): string {
    let out = text;
    if (this.#secrets.length) {
      const spans: Array<[number, number]> = [];
      for (const secret of this.#secrets) spacedOut(out, secret, spans);
      out = cutOut(out, spans);
      for (const form of this.#forms) if (out.includes(form)) out = out.split(form).join("[redacted]");
      // An echo of a key's ends: its first 12 characters go wherever they are, and its last 6 with them.
      for (const [head, tail] of this.#ends) if (out.includes(head)) out = out.split(head).join("[redacted]").split(tail).join("[redacted]");
    }
    for (const re of SHAPES) out = out.replace(re, "[redacted]");
    out = awsSecrets(out);
    if (out.includes("PRIVATE KEY-----")) out = out.replace(PRIVATE_KEY, "[redacted]");
    return out.includes("://") ? out.replace(URL_USERINFO, "$1[redacted]@") : out;
  }
}
