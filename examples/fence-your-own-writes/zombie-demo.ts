import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import {
  CheckpointWriteConditionNotFulfilledError,
  DurableSubscription,
  RedisCheckpointStorage,
  RedisLeaseStrategy,
  type Checkpoint,
  type EventSource,
  type FencingToken,
} from '../../runtime/index.js';
import { PausableLeaseClock } from '../../test/support/leases/pausable-lease-clock.js';
import { AccountBalancesProjection, balancesKey, type AccountBalances, type Deposit } from './account-balances.js';

/** What the demo ended with, for its printout and its test. */
export interface FenceDemoOutcome {
  readonly zombieToken: FencingToken;
  readonly newHolderToken: FencingToken;
  /** The zombie's refused write of the balances. */
  readonly refusal: CheckpointWriteConditionNotFulfilledError;
  /** What the zombie tried to write: the balances as of the event it froze in. */
  readonly staleState: AccountBalances;
  /** The projection at the end. */
  readonly balances: AccountBalances;
  /** The balances every deposit adds up to. */
  readonly expected: AccountBalances;
  /** The subscription's stored checkpoint at the end. */
  readonly checkpoint: Checkpoint | undefined;
}

const subscriptionId = 'deposits-to-balances';
const eventsKey = 'fence-demo:deposits';
const leaseTimeMs = 1_000;
const zombieEvent = 10;
const stepTimeoutMs = 15_000;
const deposits: readonly Deposit[] = Array.from({ length: 30 }, (_, index) => ({
  account: `acct-${(index % 3) + 1}`,
  amount: 10 + ((index * 7) % 13),
}));

/**
 * Two nodes, A and B, keep the account balances of a deposit stream with a `DurableSubscription` each over one
 * Redis. A takes the lease, projects events 0–9, and freezes in event 10 after computing its new balances (its lease
 * timers stop, as in a long GC pause). B takes the lease over with a higher token and projects events 10–29. Then A
 * wakes up and writes the balances it computed before it froze, stamped with its old token: the projection store
 * refuses it, so the balances B wrote stay. Without the token, A's write would have put the balances back to event 10.
 */
export async function runFenceYourOwnWritesDemo(
  connect: () => Redis,
  say: (line: string) => void,
): Promise<FenceDemoOutcome> {
  const admin = connect();
  const projectionStore = new RedisCheckpointStorage(admin, {
    keyPrefix: 'fence-demo:projection:',
    versionKeyPrefix: 'fence-demo:projection-version:',
  });
  const projection = new AccountBalancesProjection(projectionStore);
  const checkpoints = new RedisCheckpointStorage(admin);
  await Promise.all([checkpoints.delete(subscriptionId), projectionStore.delete(balancesKey), admin.del(eventsKey)]);
  await admin.rpush(eventsKey, ...deposits.map((deposit) => JSON.stringify(deposit)));
  say(`${deposits.length} deposits in ${eventsKey}; leases of ${leaseTimeMs} ms`);

  const zombieClock = new PausableLeaseClock();
  let staleState: AccountBalances | undefined;
  let thaw: () => void = () => undefined;
  const thawed = new Promise<void>((resolve) => {
    thaw = resolve;
  });
  let zombieRefused: (refusal: CheckpointWriteConditionNotFulfilledError) => void = () => undefined;
  const refused = new Promise<CheckpointWriteConditionNotFulfilledError>((resolve) => {
    zombieRefused = resolve;
  });

  const node = (
    name: 'A' | 'B',
  ): { subscription: DurableSubscription; strategy: RedisLeaseStrategy; client: Redis } => {
    const client = connect();
    const strategy = new RedisLeaseStrategy(client, { leaseTimeMs, ...(name === 'A' ? { clock: zombieClock } : {}) });
    strategy.onGranted((id) => {
      say(`[${name}] lease granted, fencing token ${strategy.fencingToken(id)}`);
    });
    const subscription = new DurableSubscription({
      storage: new RedisCheckpointStorage(client),
      strategy,
      subscriberId: name,
      checkpointEvery: { events: 5, ms: 200 },
      onError: (error) => {
        say(`[${name}] run ended: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      },
    });
    subscription.subscribe(
      subscriptionId,
      depositsFrom(client),
      async (deposit: Deposit, position, context) => {
        const next = await projection.next(deposit, position);
        if (next === undefined) {
          return;
        }
        // The handler's own slow work takes the run's signal, so it stops as soon as the run does.
        await sleep(5, undefined, { signal: context.signal });
        if (name === 'A' && Number(position) === zombieEvent) {
          staleState = next;
          say(
            `[A] computed the balances up to event ${position} and freezes before writing them (token ${context.fencingToken})`,
          );
          zombieClock.pause();
          // A frozen process sees nothing, not even its signal.
          await thawed;
          say(`[A] wakes up and writes the balances it computed, stamped with its token ${context.fencingToken}`);
        }
        try {
          await projection.write(next, context);
        } catch (error) {
          if (error instanceof CheckpointWriteConditionNotFulfilledError && name === 'A') {
            say(
              `[A] balances write REFUSED: the projection store holds version ${error.storedVersion}, newer than A's token ` +
                `${context.fencingToken}; B's balances stay`,
            );
            zombieRefused(error);
          }
          throw error;
        }
      },
      { startPosition: '-1' },
    );
    return { subscription, strategy, client };
  };

  const nodes = [node('A')];
  try {
    await until('A holds the lease', () => nodes[0]?.strategy.fencingToken(subscriptionId) !== undefined);
    const zombieToken = nodes[0]?.strategy.fencingToken(subscriptionId) ?? -1n;
    nodes.push(node('B'));
    await until(`A freezes in event ${zombieEvent}`, () => staleState !== undefined);
    const frozenAt = performance.now();
    const newHolder = nodes[1];
    await until(
      'B takes the lease over and projects every deposit',
      async () => (await projection.read()).position === deposits.length - 1,
    );
    const newHolderToken = newHolder?.strategy.fencingToken(subscriptionId) ?? -1n;
    say(
      `B took over with token ${newHolderToken} and projected up to event ${deposits.length - 1}, ` +
        `${Math.round(performance.now() - frozenAt)} ms after A froze`,
    );

    thaw();
    const refusal = await Promise.race([
      refused,
      sleep(stepTimeoutMs).then(() => {
        throw new Error("A's stale write of the balances was not refused: the fence did not hold");
      }),
    ]);
    zombieClock.resume();
    await until(
      `B checkpoints position ${deposits.length - 1}`,
      async () => (await checkpoints.read(subscriptionId)) === String(deposits.length - 1),
    );
    const balances = await projection.read();
    const expected = expectedBalances();
    if (!sameBalances(balances, expected)) {
      throw new Error(`The balances are ${JSON.stringify(balances)}, not ${JSON.stringify(expected)}`);
    }
    if (staleState === undefined) {
      throw new Error('A never froze');
    }
    return {
      zombieToken,
      newHolderToken,
      refusal,
      staleState,
      balances,
      expected,
      checkpoint: await checkpoints.read(subscriptionId),
    };
  } finally {
    thaw();
    zombieClock.resume();
    await Promise.all(nodes.map(({ subscription }) => subscription.shutdown()));
    await Promise.all(nodes.map(({ strategy }) => strategy.shutdown()));
    for (const client of [admin, ...nodes.map(({ client: nodeClient }) => nodeClient)]) {
      client.disconnect();
    }
  }
}

/** The deposits in `eventsKey`, from the one after `from`; a position is an item's index. Polls when caught up. */
function depositsFrom(client: Redis): EventSource<Deposit> {
  return async function* (from: Checkpoint | undefined, signal: AbortSignal) {
    let next = from === undefined ? 0 : Number(from) + 1;
    while (!signal.aborted) {
      const batch = await client.lrange(eventsKey, next, next + 99);
      for (const item of batch) {
        yield { position: String(next), event: JSON.parse(item) as Deposit };
        next += 1;
      }
      if (batch.length === 0) {
        await sleep(50, undefined, { signal }).catch(() => undefined);
      }
    }
  };
}

function sameBalances(left: AccountBalances, right: AccountBalances): boolean {
  const entries = ({ balances }: AccountBalances): string =>
    JSON.stringify(Object.entries(balances).sort(([x], [y]) => x.localeCompare(y)));
  return left.position === right.position && entries(left) === entries(right);
}

function expectedBalances(): AccountBalances {
  const balances: Record<string, number> = {};
  for (const { account, amount } of deposits) {
    balances[account] = (balances[account] ?? 0) + amount;
  }
  return { position: deposits.length - 1, balances };
}

/** Resolves once `condition` holds; rejects after 30 s naming `what`. */
async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + stepTimeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${stepTimeoutMs} ms waiting until ${what}`);
    }
    await sleep(10);
  }
}
