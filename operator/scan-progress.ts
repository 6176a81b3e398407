/** Where progress goes: stderr, and whether it is a terminal (then one line is redrawn in place). */
export interface ProgressOutput {
  write(text: string): void;
  readonly isTTY: boolean;
}

/** Progress shows only past this many keys (or rows) read: a small keyspace finishes before anyone would look. */
export const progressThreshold = 10_000;
const intervalMs = 1_000;

/**
 * Progress of a long read on stderr, so that stdout stays the report: silent up to {@link progressThreshold} items,
 * then one line at the threshold and at most one a second after it; on a terminal, one line redrawn in place and
 * cleared at the end, elsewhere (a log, a pipe) plain lines and a final count.
 */
export class ScanProgress {
  readonly #output: ProgressOutput;
  readonly #command: string;
  readonly #now: () => number;
  readonly #startedAt: number;
  #count = 0;
  #lastShownAt: number | undefined;
  /** A terminal's line was cleared for the report, so the next advance draws it again at once. */
  #interrupted = false;

  constructor(output: ProgressOutput, command: string, now: () => number = () => performance.now()) {
    this.#output = output;
    this.#command = command;
    this.#now = now;
    this.#startedAt = now();
  }

  /** How many items were counted so far. */
  get count(): number {
    return this.#count;
  }

  /** Counts `items` more items read, read where `where` says (e.g. `keys on master 2 of 3, 127.0.0.1:7001`). */
  advance(items: number, where: string): void {
    this.#count += items;
    const now = this.#now();
    const shownLately = this.#lastShownAt !== undefined && now - this.#lastShownAt < intervalMs;
    if (this.#count <= progressThreshold || (shownLately && !this.#interrupted)) {
      return;
    }
    this.#interrupted = false;
    this.#lastShownAt = now;
    this.#show(`${this.#command}: ${this.#count.toLocaleString('en-US')} ${where}…`);
  }

  /**
   * Clears a terminal's line before the report prints lines of its own while the read goes on, so that a row never
   * starts after the progress text; the next advance draws the line again below them.
   */
  interrupt(): void {
    if (this.#output.isTTY && this.#lastShownAt !== undefined && !this.#interrupted) {
      this.#output.write('\r\x1b[K');
      this.#interrupted = true;
    }
  }

  /** Ends the progress: a terminal's line is cleared, a log gets the final count when it showed anything. */
  finish(what: string): void {
    if (this.#lastShownAt === undefined) {
      return;
    }
    if (this.#output.isTTY) {
      if (!this.#interrupted) {
        this.#output.write('\r\x1b[K');
      }
      return;
    }
    const seconds = ((this.#now() - this.#startedAt) / 1_000).toFixed(1);
    this.#output.write(`${this.#command}: ${this.#count.toLocaleString('en-US')} ${what} in ${seconds} s\n`);
  }

  #show(line: string): void {
    this.#output.write(this.#output.isTTY ? `\r\x1b[K${line}` : `${line}\n`);
  }
}
