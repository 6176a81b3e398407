/** A soak checkpoint: the position handled and the token of the writer, so a reader can tell a stale write from a hand-over. */
export interface SoakCheckpoint {
  readonly offset: number;
  readonly token: bigint;
}

/** `"<offset>@<token>"`, e.g. `"120@7"`. */
export function formatSoakCheckpoint(offset: number, token: bigint): string {
  return `${offset}@${token}`;
}

/** The parts of a soak checkpoint; `undefined` when nothing is stored. @throws Error for a checkpoint no soak worker wrote. */
export function parseSoakCheckpoint(checkpoint: string | undefined): SoakCheckpoint | undefined {
  if (checkpoint === undefined) {
    return undefined;
  }
  const match = /^(\d+)@(\d+)$/.exec(checkpoint);
  if (match?.[1] === undefined || match[2] === undefined) {
    throw new Error(
      `Checkpoint ${JSON.stringify(checkpoint)} is not "<offset>@<token>"; something other than a soak worker wrote it.`,
    );
  }
  return { offset: Number(match[1]), token: BigInt(match[2]) };
}
