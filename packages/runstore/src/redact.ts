/**
 * Secrets never reach the run store: any value of an environment variable that looks like a
 * credential (…_KEY, …_TOKEN, …_SECRET, …PASSWORD), and any secret a host registers, is replaced
 * before a line or blob is written.
 */
const SECRET_ENV = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD)$/i;

export function secretsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(env)
    .filter(([k, v]) => SECRET_ENV.test(k) && typeof v === "string" && v.length >= 8)
    .map(([, v]) => v as string);
}

export class Redactor {
  readonly #secrets: string[];
  constructor(secrets: Iterable<string>) {
    // Longest first, so a secret containing another is replaced whole.
    this.#secrets = [...new Set(secrets)].filter((s) => s.length >= 8).sort((a, b) => b.length - a.length);
  }
  redact(text: string): string {
    let out = text;
    for (const s of this.#secrets) {
      // Secrets also appear JSON-escaped inside serialised values.
      for (const form of new Set([s, JSON.stringify(s).slice(1, -1)])) if (out.includes(form)) out = out.split(form).join("[redacted]");
    }
    return out;
  }
}
