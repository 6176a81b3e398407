/** How many characters of an id, key or checkpoint an error message quotes before it cuts the rest. */
const quotedTextLimit = 200;

/** A short, safe rendering of an arbitrary value for error messages. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  }
  if (typeof value === 'bigint') {
    return `${value}n`;
  }
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? `${inner}n` : inner));
    } catch {
      return Object.prototype.toString.call(value);
    }
  }
  return String(value);
}

/**
 * A subscription id, key or checkpoint quoted for an error message: whole up to about 200 characters, otherwise its
 * first 200 and its length, so a 1 MB id makes a short message. Errors keep the whole text in their own fields.
 */
export function quoteText(text: string): string {
  if (text.length <= quotedTextLimit) {
    return JSON.stringify(text);
  }
  // JSON.stringify escapes a lone surrogate, so a cut through a surrogate pair still makes a readable message.
  return `${JSON.stringify(text.slice(0, quotedTextLimit))}… (${text.length.toLocaleString('en-US')} characters)`;
}
