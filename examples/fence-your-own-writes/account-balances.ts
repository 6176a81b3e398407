import {
  CheckpointWriteCondition,
  type Checkpoint,
  type CheckpointStorage,
  type HandlerContext,
} from '../../runtime/index.js';

/** One event of the demo's stream: money paid into an account. */
export interface Deposit {
  readonly account: string;
  readonly amount: number;
}

/** The projection: every account's balance, and the position of the last event it includes. */
export interface AccountBalances {
  readonly position: number;
  readonly balances: Readonly<Record<string, number>>;
}

/** The key the projection is stored under. */
export const balancesKey = 'account-balances';

const empty: AccountBalances = { position: -1, balances: {} };

/**
 * A handler's own resource, fenced like the checkpoint: the projection is one value in a fenced key-value store
 * (here a second `RedisCheckpointStorage`, whose `save` judges `notOlderThan` atomically with the write). Every write
 * is stamped with the token of the delivery it belongs to, so once a newer holder has written, a node that lost its
 * lease without knowing it (a long GC pause, a stopped VM) is refused instead of putting back an older state.
 */
export class AccountBalancesProjection {
  readonly #store: CheckpointStorage;

  constructor(store: CheckpointStorage) {
    this.#store = store;
  }

  async read(): Promise<AccountBalances> {
    const stored = await this.#store.read(balancesKey);
    return stored === undefined ? empty : (JSON.parse(stored) as AccountBalances);
  }

  /**
   * The state after `deposit` at `position`, or `undefined` when the projection already includes it: delivery is
   * at-least-once, and a new holder delivers again what the last one handled but had not checkpointed.
   */
  async next(deposit: Deposit, position: Checkpoint): Promise<AccountBalances | undefined> {
    const current = await this.read();
    if (Number(position) <= current.position) {
      return undefined;
    }
    const balance = (current.balances[deposit.account] ?? 0) + deposit.amount;
    return { position: Number(position), balances: { ...current.balances, [deposit.account]: balance } };
  }

  /**
   * Writes `state` stamped with the delivery's fencing token. Rejects with `CheckpointWriteConditionNotFulfilledError`
   * when a newer token has written: the subscription then ends the run and gives the lease up, as for a refused
   * checkpoint.
   */
  async write(state: AccountBalances, { fencingToken }: HandlerContext): Promise<void> {
    if (fencingToken === undefined) {
      throw new Error('The balances are written only under a lease: give the DurableSubscription a strategy.');
    }
    await this.#store.save(balancesKey, JSON.stringify(state), CheckpointWriteCondition.notOlderThan(fencingToken));
  }
}
