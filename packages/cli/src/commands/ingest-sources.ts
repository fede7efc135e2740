import { existsSync, readFileSync } from "node:fs";
import { writeFileAtomic } from "@citeflow/runstore";
import { homedir } from "node:os";
import { join } from "node:path";
import { planSources, readBibtex, readCslJson, readReferences, zoteroLibrary, type CorpusDocument, type PassageStore, type ReadReport, type Reference, type SourceTally } from "@citeflow/retrieval";
import { UsageError } from "../errors.js";

async function referenceDocuments(refs: Reference[], source: string, store: PassageStore, report: ReadReport, tally: SourceTally): Promise<AsyncGenerator<CorpusDocument>> {
  const skip = await planSources(
    store,
    refs.map((r) => ({ docId: r.key, sha256: r.hash })),
    tally,
  );
  return readReferences(refs, report, { source, skip, onPdf: (_r, pages) => (tally.pages += pages) });
}

/** A CSL-JSON or BibTeX export, with its entries' PDFs (file fields, or `<pdfs>/<key>.pdf`). */
export async function bibliographyDocuments(path: string, format: "csl-json" | "bibtex", pdfs: string | undefined, store: PassageStore, report: ReadReport, tally: SourceTally) {
  if (!existsSync(path)) throw new UsageError(`${path}: no such file`);
  const read = format === "bibtex" ? readBibtex : readCslJson;
  let parsed;
  try {
    parsed = read(path, pdfs ? { pdfs } : {});
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  report.problems.push(...parsed.problems);
  return referenceDocuments(parsed.refs, format, store, report, tally);
}

export interface ZoteroSpec {
  /** "users/<id>" or "groups/<id>", from `zotero:<library>`. */
  library: string;
  collection?: string;
  tag?: string;
  /** Folder for downloaded PDFs. */
  files?: string;
}

/** Where the library version of the last complete Zotero ingest is kept, per library and filter (folder stores). */
function syncStatePath(store: PassageStore): string | undefined {
  return store.location.includes("://") ? undefined : join(store.location, "citeflow-zotero.json");
}
const syncKey = (z: ZoteroSpec) => [z.library, z.collection ?? "", z.tag ?? ""].join("|");

/**
 * A Zotero library through the Web API ($ZOTERO_API_URL, default Zotero's server; Zotero 7's local
 * API is http://localhost:23119/api) with $ZOTERO_API_KEY. Returns the documents and a function
 * that records the library version once the ingest has finished.
 */
export async function zoteroDocuments(z: ZoteroSpec, store: PassageStore, report: ReadReport, tally: SourceTally): Promise<{ docs: AsyncGenerator<CorpusDocument>; finished: () => void }> {
  const statePath = syncStatePath(store);
  const state = statePath && existsSync(statePath) ? (JSON.parse(readFileSync(statePath, "utf8")) as Record<string, number>) : {};
  const since = (await store.meta())?.incomplete ? undefined : state[syncKey(z)];
  const files = z.files ?? (statePath ? join(store.location, "zotero-files") : join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "citeflow", "zotero-files"));
  const lib = await zoteroLibrary({
    library: z.library,
    baseUrl: process.env.ZOTERO_API_URL || "https://api.zotero.org",
    ...(process.env.ZOTERO_API_KEY ? { apiKey: process.env.ZOTERO_API_KEY } : {}),
    ...(z.collection ? { collection: z.collection } : {}),
    ...(z.tag ? { tag: z.tag } : {}),
    files,
    ...(since !== undefined ? { since } : {}),
  });
  tally.libraryVersion = lib.version;
  tally.libraryUnchanged = lib.unchanged;
  // Items deleted in Zotero since the last ingest leave the store too (their passages, by item key).
  if (lib.deleted.length) {
    await store.removeDocuments(lib.deleted);
    tally.deleted = lib.deleted.length;
  }
  const finished = () => {
    if (statePath) writeFileAtomic(statePath, JSON.stringify({ ...state, [syncKey(z)]: lib.version }, null, 2) + "\n");
  };
  return { docs: await referenceDocuments(lib.refs, "zotero", store, report, tally), finished };
}
