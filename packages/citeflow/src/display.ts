/**
 * The bridge between Citeflow and whatever shows its values. The Citeflow kernel installs a sink
 * (Jupyter display_data / update_display_data); outside a kernel, displays fall back to text on
 * stdout so scripts still see something.
 */
export type MimeBundle = Record<string, unknown>;

export interface DisplaySink {
  /** Show a bundle. With `id`, later calls with the same id replace it (`update: true`). */
  show(bundle: MimeBundle, opts?: { id?: string; update?: boolean }): void;
  /** Clear the cell's output (with `wait`, when the next output arrives). */
  clear?(wait: boolean): void;
}

const SINK = Symbol.for("citeflow.display-sink");

/**
 * The id of the display a value is already shown in (a run's live display). A cell whose last
 * value is shown in a display of that same cell adds no second copy of it as its result.
 */
export const SHOWN_IN = Symbol.for("citeflow.shown-in");

type WithSink = typeof globalThis & { [SINK]?: DisplaySink };

export function setDisplaySink(sink: DisplaySink | undefined): void {
  (globalThis as WithSink)[SINK] = sink;
}

export function displaySink(): DisplaySink | undefined {
  return (globalThis as WithSink)[SINK];
}

/** Show a bundle through the kernel, or print its text/plain part when there is no kernel. */
export function showBundle(bundle: MimeBundle, opts?: { id?: string; update?: boolean }): void {
  const sink = displaySink();
  if (sink) sink.show(bundle, opts);
  else if (!opts?.update) process.stdout.write(String(bundle["text/plain"] ?? JSON.stringify(bundle)) + "\n");
}

export interface Display {
  /** Show a Citeflow value (run, passages, answer, verdicts) with its rich view; anything else as text. */
  (value: unknown): void;
  html(html: string): void;
  markdown(markdown: string): void;
  json(value: unknown): void;
  /** Any MIME type: strings as they are, objects as JSON (e.g. `application/vnd.vegalite.v5+json`). */
  raw(mime: string, value: unknown): void;
  /** A bundle of several MIME types at once. */
  bundle(bundle: MimeBundle): void;
  /** Clear this cell's output (`wait`: when the next output arrives). */
  clear(wait?: boolean): void;
}

/** Turns a value into a bundle; the citeflow package installs the rich one (runs, passages, …). */
let toBundle: (value: unknown) => MimeBundle = (v) => ({ "text/plain": String(v) });

export function setBundler(f: (value: unknown) => MimeBundle): void {
  toBundle = f;
}

function makeDisplay(id?: string): Display {
  let shown = false;
  const out = (bundle: MimeBundle) => {
    showBundle(bundle, id ? { id, update: shown } : undefined);
    shown = true;
  };
  const d = ((value: unknown) => out(toBundle(value))) as Display;
  d.html = (s) => out({ "text/html": s, "text/plain": s });
  d.markdown = (s) => out({ "text/markdown": s, "text/plain": s });
  d.json = (v) => out({ "application/json": v, "text/plain": JSON.stringify(v, null, 2) });
  d.raw = (mime, v) => out({ [mime]: v });
  d.bundle = (b) => out(b);
  d.clear = (wait = false) => displaySink()?.clear?.(wait);
  return d;
}

/** Show things in the notebook output (in every Citeflow kernel cell without an import). */
export const display: Display = makeDisplay();

/** A display that later calls replace in place (update_display_data), e.g. for progress. */
export function newDisplay(): Display {
  return makeDisplay(Math.random().toString(16).slice(2) + Date.now().toString(16));
}
