import type { Checkpoint, EventSource, PositionedEvent } from '../../../runtime/index.js';

/**
 * An append-only log of numbered events; positions are the event numbers as decimal strings. Its source waits for
 * new events instead of ending, like a live stream, and stops when its signal aborts.
 */
export class EventLog {
  #length = 0;
  #appended: (() => void)[] = [];

  get length(): number {
    return this.#length;
  }

  append(count: number): void {
    this.#length += count;
    for (const wake of this.#appended.splice(0)) {
      wake();
    }
  }

  readonly source: EventSource<number> = (from: Checkpoint | undefined, signal: AbortSignal) =>
    this.#read(from, signal);

  async *#read(from: Checkpoint | undefined, signal: AbortSignal): AsyncGenerator<PositionedEvent<number>> {
    let next = from === undefined ? 0 : Number(from) + 1;
    while (!signal.aborted) {
      if (next < this.#length) {
        yield { position: String(next), event: next };
        next += 1;
      } else {
        await new Promise<void>((resolve) => {
          const onAbort = (): void => {
            resolve();
          };
          this.#appended.push(() => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          });
          signal.addEventListener('abort', onAbort, { once: true });
        });
      }
    }
  }
}

/** Resolves once `predicate` holds, polling; rejects after `timeoutMs` naming `what`. */
export async function eventually(
  what: string,
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting until ${what}.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
