/**
 * What a terminal or a text viewer acts on instead of showing, and JSON.stringify leaves as it is: DEL and the C1
 * controls (U+009B is an 8-bit CSI, which starts an escape sequence), the bidi marks, embeddings, overrides and isolates
 * (after U+202E the text shows reversed), and the line and paragraph separators.
 */
const actedOn = '[\\u007f-\\u009f\\p{Bidi_Control}\\u2028\\u2029]';
const actedOnAnywhere = new RegExp(actedOn, 'gu');
const actedOnOnce = new RegExp(actedOn, 'u');

/**
 * `text` with every character of {@link actedOn} as a `\uXXXX` escape, which reads the same in a JSON string and shows
 * as text everywhere else. Everything the operator commands print passes through it, ids and checkpoints and the
 * servers' messages included, so none of them can move the cursor or reorder a line.
 */
export function printable(text: string): string {
  return text.replace(actedOnAnywhere, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Whether `text` has a character {@link printable} escapes. */
export function hasActedOnCharacter(text: string): boolean {
  return actedOnOnce.test(text);
}
