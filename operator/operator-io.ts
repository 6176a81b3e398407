/** Where a command writes: the report on stdout, progress, warnings and errors on stderr. */
export interface OperatorIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /**
   * Resolves once stdout can take more: at once unless a write filled its buffer (`write` returned false), else at
   * its `drain`. A pipe's writes are buffered in memory, however slowly the other end reads.
   */
  readonly outDrained: () => Promise<void>;
  /** Whether stderr is a terminal, where progress redraws one line. */
  readonly errIsTTY: boolean;
}
