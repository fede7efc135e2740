import { execFile } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { FailureError } from "./errors.js";

/** The SciFact release (Wadden et al., 2020): corpus and claims as one tarball. */
export const SCIFACT_RELEASE_URL = "https://scifact.s3-us-west-2.amazonaws.com/release/latest/data.tar.gz";
const NEEDED = ["corpus.jsonl", "claims_train.jsonl"];

export interface SciFactSource {
  /** A data folder holding scifact/ and where it was named (--data, $CITEFLOW_DATA, the data shipped with Citeflow). */
  data?: { dir: string; from: string };
  /** Where a download goes: <cache>/scifact. */
  cache: string;
  /** $CITEFLOW_ALLOW_DOWNLOADS === "1". */
  allowDownloads: boolean;
  /** $CITEFLOW_SCIFACT_URL, else the release. */
  url?: string;
  timeoutMs?: number;
  say?: (line: string) => void;
}

/**
 * The folder holding SciFact's corpus.jsonl and claims_train.jsonl: the data folder's scifact/
 * (--data, $CITEFLOW_DATA or the copy shipped with Citeflow), else an earlier download in the
 * cache, else (only when downloads are allowed) the release tarball, downloaded and unpacked there.
 * Missing → an error naming every place looked.
 */
export async function sciFactFolder(o: SciFactSource): Promise<string> {
  const cached = join(o.cache, "scifact");
  const missingIn = (dir: string) => NEEDED.filter((f) => !existsSync(join(dir, f)));
  const given = o.data && join(o.data.dir, "scifact");
  if (given && missingIn(given).length === 0) return given;
  if (missingIn(cached).length === 0) return cached;
  if (!o.allowDownloads) {
    const looked = given
      ? `${missingIn(given)
          .map((f) => join(given, f))
          .join(" and ")} (no such file; the data folder from ${o.data!.from})`
      : "$CITEFLOW_DATA (unset), --data (not given)";
    throw new FailureError(
      `the demo needs SciFact. Looked in: ${looked}, ${cached} (no earlier download). ` +
        `Set CITEFLOW_DATA to a folder holding scifact/corpus.jsonl and scifact/claims_train.jsonl, or allow the download with CITEFLOW_ALLOW_DOWNLOADS=1`,
    );
  }
  if (given) o.say?.(`no SciFact in ${given} (the data folder from ${o.data!.from})\n`);
  await download(o.url ?? SCIFACT_RELEASE_URL, cached, o.timeoutMs ?? 120_000, o.say);
  return cached;
}

/** Downloads the tarball, unpacks it in a scratch folder and moves the two files in place only when both are there. */
async function download(url: string, into: string, timeoutMs: number, say?: (line: string) => void): Promise<void> {
  mkdirSync(join(into, ".."), { recursive: true });
  const scratch = mkdtempSync(join(into, "..", ".scifact-download-"));
  try {
    say?.(`downloading SciFact from ${url}\n`);
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    } catch (e) {
      throw new FailureError(`downloading SciFact from ${url} failed: ${(e as Error).message}`);
    }
    if (!res.ok || !res.body) throw new FailureError(`downloading SciFact from ${url} failed: HTTP ${res.status} ${res.statusText}`);
    const tarball = join(scratch, "data.tar.gz");
    await pipeline(Readable.fromWeb(res.body as import("node:stream/web").ReadableStream), createWriteStream(tarball));
    try {
      await promisify(execFile)("tar", ["-xzf", tarball, "-C", scratch]);
    } catch (e) {
      throw new FailureError(`the SciFact download from ${url} is not a readable .tar.gz: ${(e as Error).message.split("\n")[0]}`);
    }
    const found = new Map(NEEDED.map((f) => [f, findFile(scratch, f)]));
    const missing = NEEDED.filter((f) => !found.get(f));
    if (missing.length) throw new FailureError(`the SciFact download from ${url} has no ${missing.join(" or ")}`);
    mkdirSync(into, { recursive: true });
    for (const [name, path] of found) renameSync(path!, join(into, name));
    say?.(`SciFact saved in ${into} (${(statSync(join(into, "corpus.jsonl")).size / 1e6).toFixed(1)} MB corpus)\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function findFile(dir: string, name: string): string | undefined {
  const hit = readdirSync(dir, { withFileTypes: true, recursive: true }).find((e) => e.isFile() && e.name === name);
  return hit && join(hit.parentPath, hit.name);
}
