import { context, metrics, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DurableSubscription,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  type EventSource,
} from '../../../runtime/index.js';
import { ATTRIBUTE_NAMES, METRIC_NAMES, SPAN_NAMES } from '../../../runtime/telemetry/index.js';
import { eventually } from '../../support/leases/event-log.js';
import { Gate } from '../../support/leases/gate.js';
import { HandSetStrategy } from '../../support/leases/hand-set-strategy.js';
import { ManualLeaseClock } from '../../support/leases/manual-lease-clock.js';
import { RecordingTelemetry } from '../../support/telemetry/recording-telemetry.js';

let recording = new RecordingTelemetry();
afterEach(async () => {
  await recording.shutdown();
  recording = new RecordingTelemetry();
});

async function sum(name: string): Promise<number> {
  return (await recording.points(name)).reduce((total, point) => total + point.value, 0);
}

describe('lease strategies', () => {
  it('count grants and losses, and the leases held', async () => {
    const clock = new ManualLeaseClock();
    const table = new InMemoryLeaseTable({ now: () => clock.now() });
    const strategy = new InMemoryLeaseStrategy({ table, clock, leaseTimeMs: 900, ...recording.options });
    await strategy.register('orders', 'node-a');
    await strategy.register('payments', 'node-a');
    expect(await sum(METRIC_NAMES.leaseGrants)).toBe(2);
    expect(await sum(METRIC_NAMES.leaseHeld)).toBe(2);

    table.deleteLease('orders');
    // The next refresh finds the lease gone: lost; the one after acquires it again.
    await clock.advance(300);
    expect(await sum(METRIC_NAMES.leaseLosses)).toBe(1);
    expect(await sum(METRIC_NAMES.leaseHeld)).toBe(1);
    await clock.advance(300);
    expect(await sum(METRIC_NAMES.leaseGrants)).toBe(3);

    // Given up, not lost.
    await strategy.unregister('payments', 'node-a');
    expect(await sum(METRIC_NAMES.leaseLosses)).toBe(1);
    expect(await sum(METRIC_NAMES.leaseHeld)).toBe(1);
    await strategy.shutdown();
    expect(await sum(METRIC_NAMES.leaseHeld)).toBe(0);
    expect((await recording.points(METRIC_NAMES.leaseGrants)).map((point) => point.attributes)).toEqual([{}]);
  });

  it('name the subscription only when recordSubscriptionIds is true', async () => {
    const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 900, ...recording.options, recordSubscriptionIds: true });
    await strategy.register('orders', 'node-a');
    expect(await recording.points(METRIC_NAMES.leaseGrants)).toEqual([
      { value: 1, attributes: { [ATTRIBUTE_NAMES.subscriptionId]: 'orders' } },
    ]);
    await strategy.shutdown();
  });
});

/** Three events, each with the lag its source reports and, for the first, the context it was sent in. */
function tracedSource(sentIn: ReturnType<typeof context.active>): EventSource<string> {
  return async function* (from, signal) {
    const events = ['a', 'b', 'c'].slice(from === undefined ? 0 : Number(from) + 1);
    for (const [index, event] of events.entries()) {
      yield {
        position: String(['a', 'b', 'c'].indexOf(event)),
        event,
        lag: events.length - index - 1,
        ...(event === 'a' ? { traceContext: sentIn } : {}),
      };
    }
    await new Promise((resolve) => {
      signal.addEventListener('abort', resolve, { once: true });
    });
  };
}

describe('DurableSubscription', () => {
  it('counts, times and traces each handled event, as a child of the context the source supplies', async () => {
    const sender = recording.tracerProvider.getTracer('sender').startSpan('publish orders');
    const sentIn = trace.setSpan(context.active(), sender);
    const subscription = new DurableSubscription({
      storage: new InMemoryCheckpointStorage(),
      onError: () => undefined,
      ...recording.options,
    });
    const handled: string[] = [];
    subscription.subscribe('orders', tracedSource(sentIn), (event: string) => {
      handled.push(event);
      if (event === 'b') {
        throw new Error('handler failed on b');
      }
    });
    await eventually('the first run failed on b', () => handled.length >= 2);
    await subscription.shutdown();
    sender.end();

    expect(await sum(METRIC_NAMES.subscriptionEvents)).toBe(1);
    expect(await sum(METRIC_NAMES.subscriptionHandlerDuration)).toBe(2);
    expect(await recording.points(METRIC_NAMES.subscriptionLag)).toEqual([{ value: 1, attributes: {} }]);
    const spans = recording.spans().filter((span) => span.name === SPAN_NAMES.subscriptionHandle);
    expect(spans).toHaveLength(2);
    expect(spans[0]?.parentSpanContext?.spanId).toBe(sender.spanContext().spanId);
    expect(spans[0]?.spanContext().traceId).toBe(sender.spanContext().traceId);
    expect(spans[1]?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'handler failed on b' });
  });

  it('counts a zombie refusal once: one refused write, one subscription refusal', async () => {
    const storage = new InMemoryCheckpointStorage(recording.options);
    const strategy = new HandSetStrategy();
    const subscription = new DurableSubscription({
      storage,
      strategy,
      subscriberId: 'node-a',
      fenceOnAcquire: false,
      takeoverGraceMs: 0,
      onError: () => undefined,
      ...recording.options,
    });
    const gate = new Gate();
    subscription.subscribe('orders', tracedSource(context.active()), async () => {
      await gate.opened;
    });
    strategy.grant(1n);
    await eventually('the handler is running', () => strategy.registered.has('orders'));
    // Another node took the lease over and fenced with token 2 while this one's handler ran.
    await storage.advanceWriteVersion('orders', 2n);
    gate.open();
    await eventually('the lease was given up', () => strategy.calls.includes('release'));
    await subscription.shutdown();

    expect(await sum(METRIC_NAMES.subscriptionRefusals)).toBe(1);
    const refused = (await recording.points(METRIC_NAMES.checkpointWrites)).filter(
      (point) => point.attributes[ATTRIBUTE_NAMES.outcome] === 'refused',
    );
    expect(refused).toEqual([
      {
        value: 1,
        attributes: {
          [ATTRIBUTE_NAMES.backend]: 'memory',
          [ATTRIBUTE_NAMES.condition]: 'not_older_than',
          [ATTRIBUTE_NAMES.outcome]: 'refused',
        },
      },
    ]);
  });

  it('records nothing when made before any SDK was registered', async () => {
    const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 3_000 });
    const subscription = new DurableSubscription({ storage: new InMemoryCheckpointStorage(), strategy });
    metrics.setGlobalMeterProvider(recording.meterProvider);
    trace.setGlobalTracerProvider(recording.tracerProvider);
    try {
      const handled: string[] = [];
      subscription.subscribe('orders', tracedSource(context.active()), (event: string) => {
        handled.push(event);
      });
      await eventually('all three were handled', () => handled.length === 3);
      await subscription.shutdown();
      await strategy.shutdown();
      expect(await recording.metricNames()).toEqual([]);
      expect(recording.spans()).toEqual([]);
    } finally {
      metrics.disable();
      trace.disable();
    }
  });
});
