import { FailureError, UsageError } from "../errors.js";

export interface DatasetsImportOptions {
  out: string;
  licence?: string;
  json: boolean;
}

const SHOWN = 10;

/** citeflow datasets import: a claim-verification set → Citeflow NLI rows with a card; the rows that could not be read are named on stderr. */
export async function datasetsImportCommand(kind: string, path: string, o: DatasetsImportOptions): Promise<number> {
  const { importClaimSet, CLAIM_SETS } = await import("@citeflow/datasets");
  if (!CLAIM_SETS[kind]) throw new UsageError(`unknown set kind "${kind}": use one of ${Object.keys(CLAIM_SETS).join(", ")}`);
  if (o.licence && kind !== "pairs") throw new UsageError(`--licence is for your own pairs (kind "pairs"): ${CLAIM_SETS[kind]!.title}'s licence is written on the card from the source`);
  let r;
  try {
    r = await importClaimSet({ kind, path, out: o.out, ...(o.licence ? { licence: o.licence } : {}) });
  } catch (e) {
    throw new FailureError((e as Error).message);
  }
  for (const p of r.problems.slice(0, SHOWN)) process.stderr.write(`refused: ${p.where}: ${p.problem}\n`);
  if (r.problems.length > SHOWN) process.stderr.write(`… and ${r.problems.length - SHOWN} more refused rows (all in ${o.out}/import.json)\n`);
  if (o.json) process.stdout.write(JSON.stringify(r) + "\n");
  else {
    const files = Object.entries(r.files)
      .map(([f, n]) => `${f} ${n}`)
      .join(", ");
    const left = Object.entries(r.leftOut)
      .map(([why, n]) => `${n} ${why}`)
      .join(", ");
    process.stdout.write(`${CLAIM_SETS[kind]!.title} → ${o.out}: ${files}${left ? `; left out: ${left}` : ""}${r.problems.length ? `; ${r.problems.length} rows refused` : ""}; card in README.md\n`);
  }
  return 0;
}
