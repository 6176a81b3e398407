/**
 * Keeps passwords out of everything the operator commands print: each secret registered (as given and as it appears
 * percent-encoded in a URL) is replaced by `***` in every message before it is written. A user name given without a
 * password may be a password written in its place, but is as often a word such as `postgres`: it is replaced only where
 * a server quotes it (`password authentication failed for user "…"`), and the URL shown names no user (`displayUrl`).
 */
export class SecretRedactor {
  /** Each text to replace, with what replaces it. */
  readonly #replacements = new Map<string, string>();

  /** Registers `secret`; an empty one is ignored. */
  add(secret: string | undefined): void {
    if (secret === undefined || secret === '') {
      return;
    }
    this.#replacements.set(secret, '***');
    this.#replacements.set(encodeURIComponent(secret), '***');
  }

  /** Registers a user name given without a password: `"<name>"` becomes `"***"`; an empty one is ignored. */
  addLoneUserName(name: string): void {
    if (name !== '') {
      this.#replacements.set(`"${name}"`, '"***"');
    }
  }

  /** `text` with every registered secret replaced, the longest first so that no part of one is left over. */
  redact(text: string): string {
    let redacted = text;
    for (const [secret, replacement] of [...this.#replacements].sort(([a], [b]) => b.length - a.length)) {
      redacted = redacted.split(secret).join(replacement);
    }
    return redacted;
  }
}
