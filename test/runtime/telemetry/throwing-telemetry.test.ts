import { metrics, trace } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock, type MockInstance } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  DurableSubscription,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  type CheckpointStorage,
  type EventSource,
  type TelemetryOptions,
} from '../../../runtime/index.js';
import { InMemoryDualAnchorCheckpointStore } from '../../../runtime/dual-anchor-entry.js';
import { ATTRIBUTE_NAMES, METRIC_NAMES } from '../../../runtime/telemetry/index.js';
import { eventually } from '../../support/leases/event-log.js';
import { RecordingTelemetry } from '../../support/telemetry/recording-telemetry.js';
import {
  spyOnWarnings,
  ThrowingMeterProvider,
  ThrowingSpanProcessor,
  writeEveryOutcome,
} from '../../support/telemetry/throwing-telemetry.js';

const { notOlderThan } = CheckpointWriteCondition;

let warnings: MockInstance<typeof process.emitWarning>;
const shutdowns: (() => Promise<void>)[] = [];
beforeEach(() => {
  warnings = spyOnWarnings();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(shutdowns.splice(0).map((shutdown) => shutdown()));
});

function recordingWith(processor?: ThrowingSpanProcessor): RecordingTelemetry {
  const recording = new RecordingTelemetry(processor === undefined ? [] : [processor]);
  shutdowns.push(() => recording.shutdown());
  return recording;
}

/** The one report a telemetry failure makes: an error saying what broke, with what OpenTelemetry threw as its cause. */
function expectReportedOnce(report: Mock | MockInstance, cause: string, what: RegExp): void {
  expect(report).toHaveBeenCalledTimes(1);
  const error = report.mock.calls[0]?.[0] as Error;
  expect(error).toBeInstanceOf(Error);
  expect(error.message).toMatch(what);
  expect(error.message).toContain('fix or remove it');
  expect((error.cause as Error).message).toBe(cause);
}

async function sum(recording: RecordingTelemetry, name: string): Promise<number> {
  return (await recording.points(name)).reduce((total, point) => total + point.value, 0);
}

/** Three events from position 0, then nothing until the run stops. */
const threeEvents: EventSource<string> = async function* (from, signal) {
  for (let position = from === undefined ? 0 : Number(from) + 1; position < 3; position += 1) {
    yield { position: String(position), event: `event ${position}`, lag: 2 - position };
  }
  await new Promise((resolve) => {
    signal.addEventListener('abort', resolve, { once: true });
  });
};

/** A subscription of node-a over `storage` and `strategy`. */
function leasedSubscription(
  storage: CheckpointStorage,
  strategy: InMemoryLeaseStrategy,
  options: TelemetryOptions & { readonly onError: Mock },
): DurableSubscription {
  return new DurableSubscription({ storage, strategy, subscriberId: 'node-a', ...options });
}

/** Runs `subscription` until it handled the three events and wrote their checkpoint; resolves to what it handled. */
async function handleThreeEvents(
  subscription: DurableSubscription,
  storage: CheckpointStorage,
  strategy: InMemoryLeaseStrategy,
): Promise<string[]> {
  const handled: string[] = [];
  subscription.subscribe('orders', threeEvents, (event: string) => {
    handled.push(event);
  });
  await eventually('the three events were handled and their checkpoint written', async () => {
    return (await storage.read('orders')) === '2';
  });
  await subscription.shutdown();
  await strategy.shutdown();
  return handled;
}

describe.each(['onStart', 'onEnd'] as const)('a span processor that throws from %s', (throwsIn) => {
  it('leaves every storage write the outcome the storage decided, still counts it, and warns once', async () => {
    const processor = new ThrowingSpanProcessor(throwsIn);
    const recording = recordingWith(processor);
    await writeEveryOutcome(new InMemoryCheckpointStorage(recording.options));

    expect(processor.thrown).toBe(4);
    expect(await sum(recording, METRIC_NAMES.checkpointWrites)).toBe(4);
    // onEnd throws after the recording processor exported each span, with the outcome it was ended with.
    expect(recording.spans().map((span) => span.attributes[ATTRIBUTE_NAMES.outcome])).toEqual(
      throwsIn === 'onEnd' ? ['accepted', 'refused', 'accepted', 'error'] : [],
    );
    expectReportedOnce(warnings, `span processor ${throwsIn} failed`, /recording a checkpoint write/);
    expect((warnings.mock.calls[0]?.[0] as Error).name).toBe('CheckpointFencingTelemetryWarning');
  });

  it('lets a subscription handle every event and write its checkpoints, and tells its onError once', async () => {
    const processor = new ThrowingSpanProcessor(throwsIn);
    const recording = recordingWith(processor);
    const onError = vi.fn();
    const storage = new InMemoryCheckpointStorage(recording.options);
    const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 3_000, ...recording.options });
    const subscription = leasedSubscription(storage, strategy, { onError, ...recording.options });
    const handled = await handleThreeEvents(subscription, storage, strategy);

    expect(handled).toEqual(['event 0', 'event 1', 'event 2']);
    expect(await sum(recording, METRIC_NAMES.subscriptionEvents)).toBe(3);
    expectReportedOnce(onError, `span processor ${throwsIn} failed`, /recording a handled event/);
    expect(onError.mock.calls[0]?.[1]).toBe('orders');
    // The storage's fence on acquire and its three checkpoint writes: one warning for all of them.
    expect(processor.thrown).toBeGreaterThanOrEqual(7);
    expectReportedOnce(warnings, `span processor ${throwsIn} failed`, /recording a checkpoint write/);
  });

  it('leaves every dual-anchor write the outcome the store decided', async () => {
    const processor = new ThrowingSpanProcessor(throwsIn);
    const store = new InMemoryDualAnchorCheckpointStore(recordingWith(processor).options);
    const at = new Date('2024-05-01T10:00:00Z');
    await store.saveSeen('orders', { offset: 2 }, at, at, notOlderThan(2));
    await store.saveProcessed('orders', { offset: 1 }, at);
    await expect(store.saveProcessed('orders', { offset: 2 }, at, at, notOlderThan(1))).rejects.toThrow(
      CheckpointWriteConditionNotFulfilledError,
    );
    await store.saveHeartbeat('orders', at);
    await store.resetAfterHistoryLost('orders', { offset: 9 }, { offset: 1 }, at);

    expect(await store.findByStreamName('orders')).toMatchObject({
      lastSeenToken: { offset: 9 },
      lastProcessedToken: null,
      lastHeartbeatTimestamp: at,
    });
    expect(processor.thrown).toBe(5);
    expectReportedOnce(warnings, `span processor ${throwsIn} failed`, /recording a checkpoint write/);
  });
});

describe.each(['create', 'record'] as const)('a meter that throws when it is asked to %s', (throwsIn) => {
  it('leaves every storage write the outcome the storage decided, and warns once', async () => {
    const meterProvider = new ThrowingMeterProvider(throwsIn);
    const recording = recordingWith();
    const options = { ...recording.options, meterProvider };
    await writeEveryOutcome(new InMemoryCheckpointStorage(options));
    // Another made with the same options, as a storage's binding to a transaction is: warned of already.
    expect(new InMemoryCheckpointStorage(options)).toBeInstanceOf(InMemoryCheckpointStorage);

    expect(meterProvider.thrown).toBe(throwsIn === 'create' ? 2 : 4);
    // A meter that cannot make its instruments leaves the storage recording nothing; one that cannot record, spans.
    expect(recording.spans()).toHaveLength(throwsIn === 'create' ? 0 : 4);
    expectReportedOnce(
      warnings,
      `meter ${throwsIn} failed`,
      throwsIn === 'create' ? /while the memory storage made its instruments/ : /recording a checkpoint write/,
    );
  });

  it('lets a lease strategy grant, announce and give up its leases', async () => {
    const meterProvider = new ThrowingMeterProvider(throwsIn);
    const onError = vi.fn();
    const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 3_000, meterProvider, onError });
    const granted = vi.fn();
    strategy.onGranted(granted);

    expect(await strategy.register('orders', 'node-a')).toBe(true);
    expect(granted).toHaveBeenCalledWith('orders', 'node-a');
    expect(strategy.fencingToken('orders')).toBeDefined();
    await strategy.unregister('orders', 'node-a');
    expect(strategy.hasLock('orders', 'node-a')).toBe(false);
    await strategy.shutdown();

    if (throwsIn === 'create') {
      expect(meterProvider.thrown).toBe(1);
      expect(onError).not.toHaveBeenCalled();
      expectReportedOnce(warnings, 'meter create failed', /while a lease strategy made its instruments/);
    } else {
      expect(meterProvider.thrown).toBe(2);
      expectReportedOnce(onError, 'meter record failed', /recording a lease grant or loss/);
      expect(onError.mock.calls[0]?.slice(1)).toEqual(['orders', 'node-a']);
    }
  });

  it('lets a subscription handle every event and write its checkpoints', async () => {
    const meterProvider = new ThrowingMeterProvider(throwsIn);
    const onError = vi.fn();
    const options = { meterProvider, onError };
    const storage = new InMemoryCheckpointStorage({ meterProvider });
    const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 3_000, ...options });
    const handled = await handleThreeEvents(leasedSubscription(storage, strategy, options), storage, strategy);

    expect(handled).toEqual(['event 0', 'event 1', 'event 2']);
    if (throwsIn === 'create') {
      // Each of the three made no instruments and said so at once.
      expect(onError).not.toHaveBeenCalled();
      expect(warnings).toHaveBeenCalledTimes(3);
    } else {
      // The strategy's grant, the subscription's events and the storage's writes: one report each.
      expect(onError).toHaveBeenCalledTimes(2);
      expect(onError.mock.calls.map(([error]) => (error as Error).message)).toEqual([
        expect.stringMatching(/recording a lease grant or loss/),
        expect.stringMatching(/recording a handled event/),
      ]);
      expectReportedOnce(warnings, 'meter record failed', /recording a checkpoint write/);
    }
  });
});

describe('an SDK registered late, whose span processor throws', () => {
  afterEach(() => {
    metrics.disable();
    trace.disable();
  });

  it('breaks nothing made before it, which records nothing, nor anything made after it', async () => {
    const made = (): [InMemoryCheckpointStorage, InMemoryLeaseStrategy, DurableSubscription, Mock] => {
      const storage = new InMemoryCheckpointStorage();
      const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 3_000 });
      const onError = vi.fn();
      return [storage, strategy, leasedSubscription(storage, strategy, { onError }), onError];
    };
    const [storageBefore, strategyBefore, subscriptionBefore, onErrorBefore] = made();
    const processor = new ThrowingSpanProcessor('onEnd');
    const recording = recordingWith(processor);
    metrics.setGlobalMeterProvider(recording.meterProvider);
    trace.setGlobalTracerProvider(recording.tracerProvider);

    await writeEveryOutcome(storageBefore);
    await storageBefore.delete('orders');
    expect(await handleThreeEvents(subscriptionBefore, storageBefore, strategyBefore)).toHaveLength(3);
    expect(processor.thrown).toBe(0);
    expect(await recording.metricNames()).toEqual([]);
    expect(onErrorBefore).not.toHaveBeenCalled();
    expect(warnings).not.toHaveBeenCalled();

    const [storageAfter, strategyAfter, subscriptionAfter, onErrorAfter] = made();
    await writeEveryOutcome(storageAfter);
    await storageAfter.delete('orders');
    expect(await handleThreeEvents(subscriptionAfter, storageAfter, strategyAfter)).toHaveLength(3);
    // Four writes, three handled events, and the subscription's fence and three checkpoint writes.
    expect(processor.thrown).toBeGreaterThanOrEqual(4 + 3 + 4);
    expect(await sum(recording, METRIC_NAMES.subscriptionEvents)).toBe(3);
    expect(await sum(recording, METRIC_NAMES.leaseGrants)).toBe(1);
    expectReportedOnce(onErrorAfter, 'span processor onEnd failed', /recording a handled event/);
    expectReportedOnce(warnings, 'span processor onEnd failed', /recording a checkpoint write/);
  });
});
