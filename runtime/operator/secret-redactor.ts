/**
 * Keeps passwords out of everything the operator commands print: each secret registered (as given and as it appears
 * percent-encoded in a URL) is replaced by `***` in every message before it is written.
 */
export class SecretRedactor {
  readonly #secrets = new Set<string>();

  /** Registers `secret`; an empty one is ignored. */
  add(secret: string | undefined): void {
    if (secret === undefined || secret === '') {
      return;
    }
    this.#secrets.add(secret);
    this.#secrets.add(encodeURIComponent(secret));
  }

  /** `text` with every registered secret replaced by `***`, the longest first so that no part of one is left over. */
  redact(text: string): string {
    let redacted = text;
    for (const secret of [...this.#secrets].sort((a, b) => b.length - a.length)) {
      redacted = redacted.split(secret).join('***');
    }
    return redacted;
  }
}
