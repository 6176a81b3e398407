/** How many characters of an id, key or checkpoint an error message quotes before it cuts the rest. */
const quotedTextLimit = 200;

/**
 * What a terminal or a log viewer acts on instead of showing, and JSON.stringify leaves as it is: DEL and the C1
 * controls (U+009B is an 8-bit CSI), the bidi marks, embeddings, overrides and isolates, the line and paragraph
 * separators. Messages quote them as `\uXXXX`, as JSON.stringify quotes the C0 controls.
 */
const actedOn = /[\u007f-\u009f\p{Bidi_Control}\u2028\u2029]/gu;

/** `JSON.stringify(value, replacer)`, with {@link actedOn} escaped too. */
function json(value: unknown, replacer?: (key: string, value: unknown) => unknown): string {
  return JSON.stringify(value, replacer).replace(
    actedOn,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A short, safe rendering of an arbitrary value for error messages. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    return json(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  }
  if (typeof value === 'bigint') {
    return `${value}n`;
  }
  if (typeof value === 'object' && value !== null) {
    try {
      return json(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? `${inner}n` : inner));
    } catch {
      return Object.prototype.toString.call(value);
    }
  }
  return String(value);
}

/**
 * A subscription id, key or checkpoint quoted for an error message: whole up to about 200 characters, otherwise its
 * first 200 and its length, so a 1 MB id makes a short message; every control and bidi character escaped, so none
 * acts on the terminal or viewer that shows the message. Errors keep the whole text in their own fields.
 */
export function quoteText(text: string): string {
  if (text.length <= quotedTextLimit) {
    return json(text);
  }
  // JSON.stringify escapes a lone surrogate, so a cut through a surrogate pair still makes a readable message.
  return `${json(text.slice(0, quotedTextLimit))}… (${text.length.toLocaleString('en-US')} characters)`;
}
