// The part of citation.js 0.7 Citeflow uses (0.7 ships no types; 0.8+ needs Node 22).
declare module "@citation-js/core" {
  export class Cite {
    constructor(data: string, options?: { forceType?: string });
    /** The entries as CSL-JSON items. */
    data: Array<Record<string, unknown>>;
  }
}
declare module "@citation-js/plugin-bibtex";
