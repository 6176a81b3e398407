/**
 * Where leases and their fencing tokens live. `owner` identifies one consumer of one strategy instance. Every method
 * is one atomic step in the store: acquiring mints the next token in the same step that writes the lease.
 */
export interface LeaseStore {
  /**
   * Takes the lease when it is free and resolves to its newly minted token, or to the token it already has when
   * `owner` holds it; resolves to `undefined` when another owner holds it.
   */
  acquire(subscriptionId: string, owner: string, leaseTimeMs: number): Promise<bigint | undefined>;

  /** Extends the lease by `leaseTimeMs` when `owner` still holds it with `token`; resolves to whether it did. */
  refresh(subscriptionId: string, owner: string, token: bigint, leaseTimeMs: number): Promise<boolean>;

  /** Frees the lease when `owner` still holds it with `token`; a stale holder's late release frees nothing. */
  release(subscriptionId: string, owner: string, token: bigint): Promise<void>;
}
