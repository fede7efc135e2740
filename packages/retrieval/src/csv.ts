/**
 * RFC 4180 CSV, streamed: quoted fields may hold commas, doubled quotes and line breaks.
 * Yields each record with the line it started on.
 */
export async function* csvRecords(chunks: AsyncIterable<string>, delimiter = ","): AsyncGenerator<{ line: number; fields: string[]; error?: string }> {
  let field = "";
  let fields: string[] = [];
  let quoted = false;
  let afterQuote = false;
  let line = 1;
  let start = 1;
  let error: string | undefined;
  const endRecord = function* () {
    fields.push(field);
    const rec = { line: start, fields, ...(error ? { error } : {}) };
    field = "";
    fields = [];
    error = undefined;
    afterQuote = false;
    if (!(rec.fields.length === 1 && rec.fields[0] === "" && !rec.error)) yield rec;
  };
  let pendingCR = false;
  for await (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (pendingCR) {
        pendingCR = false;
        if (c === "\n") continue;
      }
      if (quoted) {
        if (c === '"') {
          if (chunk[i + 1] === '"') {
            field += '"';
            i++;
          } else {
            // Closing quote, or (at a chunk's end) the first of a doubled pair: the next character decides.
            quoted = false;
            afterQuote = true;
          }
        } else {
          if (c === "\n") line++;
          field += c;
        }
        continue;
      }
      if (afterQuote && c === '"') {
        // The quote before was the first of a doubled pair split across chunks.
        field += '"';
        quoted = true;
        afterQuote = false;
        continue;
      }
      if (c === delimiter) {
        fields.push(field);
        field = "";
        afterQuote = false;
      } else if (c === "\n" || c === "\r") {
        yield* endRecord();
        line++;
        start = line;
        if (c === "\r") pendingCR = true;
      } else if (c === '"' && field === "" && !afterQuote) quoted = true;
      else {
        if (afterQuote) error ??= `text after a closing quote in field ${fields.length + 1}`;
        field += c;
      }
    }
  }
  if (quoted) error = `unclosed quote (the record starting on line ${start} runs to the end of the file)`;
  yield* endRecord();
}
