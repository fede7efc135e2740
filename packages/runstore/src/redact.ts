/**
 * Secrets never reach the run store, exports or printed errors, and redaction never rewrites data.
 * Two rules, both applied to all text before it is written or shown:
 *
 * - by value: the values of the environment variables that hold credentials — names ending in
 *   KEY, TOKEN, SECRET or PASSWORD, and any named in $CITEFLOW_SECRETS; the header values in
 *   $OPENAI_CUSTOM_HEADERS — and secrets a host
 *   registers, only when the value is credential-like (`looksSecret`): never a word or a phrase,
 *   so `MY_SORT_KEY=passages` or a marked variable holding "with" rewrites nothing. A known secret
 *   is also found URL-encoded, in base64 (standard or URL-safe) and spaced out character by character;
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
  // AWS secret access keys: 40 base64 characters with upper case, lower case and a digit (a hex SHA-1 has no upper case).
  /(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
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

/** The forms a known secret takes in text: as written, JSON-escaped, URL-encoded, base64. */
function forms(secret: string): string[] {
  const b64 = Buffer.from(secret).toString("base64");
  return [...new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), b64, b64.replace(/=+$/, ""), Buffer.from(secret).toString("base64url")])];
}

/** A known secret spaced out: its characters with whitespace (or zero-width spaces) between them. */
function spaced(secret: string): RegExp {
  return new RegExp([...secret].map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\u200b]*"), "g");
}

export class Redactor {
  readonly #secrets: { forms: string[]; spaced: RegExp }[];
  constructor(secrets: Iterable<string>) {
    // Longest first, so a secret containing another is replaced whole. A registered secret too
    // short to tell from ordinary text (under 6 characters) is not searched for.
    this.#secrets = [...new Set(secrets)]
      .filter((s) => s.length >= 6 && !/\s/.test(s))
      .sort((a, b) => b.length - a.length)
      .map((s) => ({ forms: forms(s), spaced: spaced(s) }));
  }
  redact(text: string): string {
    let out = text;
    for (const s of this.#secrets) {
      for (const form of s.forms) if (out.includes(form)) out = out.split(form).join("[redacted]");
      out = out.replace(s.spaced, "[redacted]");
    }
    for (const re of SHAPES) out = out.replace(re, "[redacted]");
    return out.replace(URL_USERINFO, "$1[redacted]@");
  }
}
