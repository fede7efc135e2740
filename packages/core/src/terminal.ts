/**
 * Text as it may reach a terminal: every control character that could move the cursor, clear the
 * screen, set the title, write the clipboard (OSC 52) or reorder what is shown (bidi overrides) is
 * written out visibly as `\uXXXX`; tab and newline stay. Inside a JSON string the same six
 * characters are the escape of the character itself, so JSON printed through it parses back to
 * the same value. The one rule for everything from corpora, runs, graphs or servers that is printed.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function terminalText(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
