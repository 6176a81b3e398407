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
