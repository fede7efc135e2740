/** One execution, as history_request returns it. */
export interface Entry {
  line: number;
  input: string;
  output: string | null;
}

export interface HistoryQuery {
  hist_access_type?: string;
  output?: boolean;
  session?: number;
  start?: number;
  stop?: number;
  n?: number;
  pattern?: string;
  unique?: boolean;
}

type Row = [number, number, string] | [number, number, [string, string | null]];

/** Glob (`*`, `?`) as IPython's history search reads it. */
function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`, "s");
}

/** This kernel session's inputs and outputs (session number 1; earlier sessions are not kept). */
export class History {
  static readonly SESSION = 1;
  readonly #entries: Entry[] = [];

  add(line: number, input: string): Entry {
    const e = { line, input, output: null };
    this.#entries.push(e);
    return e;
  }

  query(q: HistoryQuery): Row[] {
    let rows = this.#entries;
    switch (q.hist_access_type) {
      case "range": {
        if (q.session !== undefined && q.session !== 0 && q.session !== History.SESSION) return [];
        const start = q.start ?? 1;
        const stop = q.stop ?? Number.POSITIVE_INFINITY;
        rows = rows.filter((e) => e.line >= start && e.line < stop);
        break;
      }
      case "search": {
        const re = globToRegExp(q.pattern ?? "*");
        rows = rows.filter((e) => re.test(e.input));
        if (q.unique) {
          const seen = new Set<string>();
          rows = rows
            .reverse()
            .filter((e) => !seen.has(e.input) && seen.add(e.input))
            .reverse();
        }
        if (q.n !== undefined && q.n > 0) rows = rows.slice(-q.n);
        break;
      }
      default:
        if (q.n !== undefined) rows = q.n > 0 ? rows.slice(-q.n) : [];
    }
    return rows.map((e) => (q.output ? [History.SESSION, e.line, [e.input, e.output]] : [History.SESSION, e.line, e.input]));
  }
}
