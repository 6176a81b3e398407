import { describe, expect, it } from 'vitest';
import type {
  InspectedBatch,
  Inspection,
  InspectionCoverage,
  OperatorBackend,
} from '../../operator/operator-backend.js';
import type { OperatorInvocation } from '../../operator/operator-arguments.js';
import { resetCommand } from '../../operator/reset-command.js';
import type { ScanProgress } from '../../operator/scan-progress.js';
import type { SubscriptionState } from '../../operator/subscription-health.js';
import { CheckpointWriteCondition, CheckpointWriteConditionNotFulfilledError } from '../../runtime/index.js';

const stopped: SubscriptionState = {
  id: 'orders',
  checkpoint: '42',
  storedVersion: 5n,
  lease: undefined,
  tokenCounter: 5n,
  clusterUnaligned: false,
  records: {},
  problems: [],
};

/**
 * A store of subscription states that changes as the storage's and the strategy's methods would, and records each
 * change; `onRaise` lets a test act as a consumer that takes the lease right after the counter is raised.
 */
class RecordingBackend implements OperatorBackend {
  readonly target = 'redis://test';
  readonly calls: string[] = [];
  readonly states: Map<string, SubscriptionState>;

  constructor(
    states: readonly SubscriptionState[],
    readonly onRaise: (id: string, version: bigint) => void = () => undefined,
  ) {
    this.states = new Map(states.map((state) => [state.id ?? '', state]));
  }

  async inspect(ids: readonly string[]): Promise<Inspection> {
    const subscriptions = ids.map(
      (id) => this.states.get(id) ?? { ...stopped, id, checkpoint: undefined, storedVersion: undefined },
    );
    return { subscriptions, coverage: `${subscriptions.length} ids read` };
  }

  async inspectEverySubscription(_progress: ScanProgress, report: InspectedBatch): Promise<InspectionCoverage> {
    await report([...this.states.values()]);
    return { coverage: `${this.states.size} ids read` };
  }

  async raiseFencingTokenAbove(id: string, version: bigint): Promise<void> {
    this.calls.push(`raiseFencingTokenAbove ${id} ${version}`);
    const state = this.#state(id);
    const counter = state.tokenCounter ?? -1n;
    this.states.set(id, { ...state, tokenCounter: counter > version ? counter : version });
    this.onRaise(id, version);
  }

  async advanceWriteVersion(id: string, version: bigint): Promise<void> {
    this.calls.push(`advanceWriteVersion ${id} ${version}`);
    const state = this.#state(id);
    if (state.storedVersion !== undefined && state.storedVersion > version) {
      throw new CheckpointWriteConditionNotFulfilledError(
        id,
        CheckpointWriteCondition.notOlderThan(version),
        state.storedVersion,
      );
    }
    this.states.set(id, { ...state, storedVersion: version });
  }

  async deleteCheckpointKeepingVersion(id: string): Promise<void> {
    this.calls.push(`deleteCheckpointKeepingVersion ${id}`);
    this.states.set(id, { ...this.#state(id), checkpoint: undefined });
  }

  async deleteCheckpoint(id: string): Promise<void> {
    this.calls.push(`deleteCheckpoint ${id}`);
    this.states.set(id, { ...this.#state(id), checkpoint: undefined, storedVersion: undefined });
  }

  describeRecords(id: string): string {
    return `the records of ${id}`;
  }

  async close(): Promise<void> {}

  #state(id: string): SubscriptionState {
    const state = this.states.get(id);
    if (state === undefined) {
      throw new Error(`no state for ${id}`);
    }
    return state;
  }
}

async function reset(backend: RecordingBackend, ids: readonly string[], yes = true): Promise<string> {
  const invocation: OperatorInvocation = {
    command: 'reset',
    help: false,
    store: undefined,
    ids,
    json: false,
    prometheus: false,
    yes,
  };
  let out = '';
  await resetCommand(
    invocation,
    backend,
    { out: (text) => (out += text), err: () => undefined, outDrained: async () => undefined, errIsTTY: false },
    '',
  );
  return out;
}

describe('reset', () => {
  it('fences one above the token counter when a token was minted above the stored version and never written', async () => {
    const backend = new RecordingBackend([{ ...stopped, tokenCounter: 7n }]);
    expect(await reset(backend, ['orders'])).toMatch(
      /^reset "orders": deleted its checkpoint and fenced it at version 8,/u,
    );
    expect(backend.calls).toEqual([
      'raiseFencingTokenAbove orders 8',
      'advanceWriteVersion orders 8',
      'deleteCheckpointKeepingVersion orders',
    ]);
    expect(backend.states.get('orders')).toMatchObject({ checkpoint: undefined, storedVersion: 8n, tokenCounter: 8n });
  });

  it('fences one above the stored version when the counter fell behind it, and heals the counter', async () => {
    const backend = new RecordingBackend([{ ...stopped, tokenCounter: undefined }]);
    await reset(backend, ['orders']);
    expect(backend.states.get('orders')).toMatchObject({ checkpoint: undefined, storedVersion: 6n, tokenCounter: 6n });
  });

  it('deletes only the checkpoint when nothing was ever fenced or minted', async () => {
    const backend = new RecordingBackend([{ ...stopped, storedVersion: undefined, tokenCounter: undefined }]);
    expect(await reset(backend, ['orders'])).toMatch(/no version is stored and no token was minted for it/u);
    expect(backend.calls).toEqual(['deleteCheckpointKeepingVersion orders']);
  });

  it('stops, with the checkpoint left, when a consumer fences above the reset while it runs', async () => {
    const backend = new RecordingBackend([stopped], (id, version) => {
      const state = backend.states.get(id);
      backend.states.set(id, { ...stopped, ...state, storedVersion: version + 1n });
    });
    await expect(reset(backend, ['orders'])).rejects.toThrow(
      /^"orders" was fenced above 6 while reset ran \(stored version 7\): a consumer took its lease/u,
    );
    expect(backend.states.get('orders')?.checkpoint).toBe('42');
  });

  it('refuses every id, changing none, when one has a live lease or a value no storage writes', async () => {
    const live = { ...stopped, id: 'live', lease: { holder: 'node-a x/1', token: 5n, expiresInMs: 900 } };
    const broken = { ...stopped, id: 'broken', problems: ['a key of broken is not a string'] };
    const backend = new RecordingBackend([stopped, live, broken]);
    await expect(reset(backend, ['orders', 'live'])).rejects.toThrow(
      /^"live" has a live lease \(holder "node-a x\/1", token 5, expires in 0\.9 s\): its holder keeps delivering/u,
    );
    await expect(reset(backend, ['orders', 'broken'])).rejects.toThrow(
      /^"broken" holds a value no storage or strategy writes \(a key of broken is not a string\)/u,
    );
    expect(backend.calls).toEqual([]);
  });

  it('deletes both keys of an id a Cluster cannot fence, and says without --yes what it would do', async () => {
    const backend = new RecordingBackend([{ ...stopped, clusterUnaligned: true }]);
    expect(await reset(backend, ['orders'], false)).toMatch(/^would delete the records of orders: on a Cluster/u);
    expect(backend.calls).toEqual([]);
    await reset(backend, ['orders']);
    expect(backend.calls).toEqual(['deleteCheckpoint orders']);
  });
});
