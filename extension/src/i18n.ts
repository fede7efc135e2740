/** Translatable strings: the plugin swaps in JupyterLab's translator when it activates. */
import { nullTranslator, type TranslationBundle } from "@jupyterlab/translation";

export let trans: TranslationBundle = nullTranslator.load("citeflow");

export function setTranslationBundle(bundle: TranslationBundle): void {
  trans = bundle;
}
