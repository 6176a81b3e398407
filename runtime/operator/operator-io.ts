/** Where a command writes: the report on stdout, progress, warnings and errors on stderr. */
export interface OperatorIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Whether stderr is a terminal, where progress redraws one line. */
  readonly errIsTTY: boolean;
}
