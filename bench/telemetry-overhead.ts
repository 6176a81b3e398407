import { availableParallelism } from 'node:os';
import { Redis } from 'ioredis';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import {
  CheckpointWriteCondition,
  InMemoryCheckpointStorage,
  RedisCheckpointStorage,
  type TelemetryOptions,
} from '../runtime/index.js';
import { startRedisServer } from '../test/support/redis/index.js';
import { comparePaired, formatComparison, loadAverage } from './paired-throughput.js';

// What recording costs once an SDK is registered (issue 24; without one, bench:in-memory and bench:redis measure the
// package as it is, doc/observability.md says how they compared with the package before telemetry). A storage
// without telemetry against the same storage recording metrics, and metrics and spans, into the real SDK: a metric
// reader that exports only at the end, spans batched to an exporter that drops them, as a service's would be.
// 1. In memory, where a write costs least and recording's share is largest: the variants interleaved, round after
//    round, throughput the median round, the ratio the median of the per-round ratios.
// 2. On a real redis-server, in back-to-back pairs (bench/paired-throughput.ts), 64 writes in flight.

const operations = Number(process.env['BENCH_OPERATIONS'] ?? 200_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 15);
const ids = Array.from({ length: 1_000 }, (_, index) => `subscription-${index}`);

/** Drops every span: the bench measures recording and batching, not an exporter's network. */
const droppingExporter: SpanExporter = {
  export: (_spans: ReadableSpan[], done) => {
    // ExportResultCode.SUCCESS, from @opentelemetry/core, which the workspace does not depend on directly.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- see above
    done({ code: 0 });
  },
  shutdown: async () => undefined,
};

function sdk(spans: boolean): TelemetryOptions & { shutdown(): Promise<void> } {
  const meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
        exportIntervalMillis: 60_000,
      }),
    ],
  });
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(droppingExporter)] });
  return {
    meterProvider,
    ...(spans ? { tracerProvider } : {}),
    shutdown: async () => {
      await Promise.all([meterProvider.shutdown(), tracerProvider.shutdown()]);
    },
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function benchInMemory(): Promise<void> {
  const metricsOnly = sdk(false);
  const metricsAndSpans = sdk(true);
  const variants: readonly (readonly [string, TelemetryOptions])[] = [
    ['no SDK', {}],
    ['metrics', metricsOnly],
    ['metrics and spans', metricsAndSpans],
  ];
  const samples = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  const write = async (options: TelemetryOptions, count: number): Promise<void> => {
    const storage = new InMemoryCheckpointStorage(options);
    let condition = CheckpointWriteCondition.notOlderThan(0);
    for (let index = 0; index < count; index += 1) {
      if (index % 1_000 === 0) {
        condition = CheckpointWriteCondition.notOlderThan(index);
      }
      await storage.save(ids[index % ids.length] ?? '', `position-${index}`, condition);
    }
  };
  for (const [, options] of variants) {
    await write(options, operations / 10);
  }
  const loadBefore = loadAverage();
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, options] of variants) {
      const started = process.hrtime.bigint();
      await write(options, operations);
      samples.get(name)?.push(operations / (Number(process.hrtime.bigint() - started) / 1e9));
    }
  }
  console.log(
    `in-memory save notOlderThan, per lease: ${operations} writes × ${rounds} rounds, Node ${process.version}, ` +
      `load average ${loadBefore} before and ${loadAverage()} after, on ${availableParallelism()} cores`,
  );
  const none = samples.get('no SDK') ?? [];
  for (const [name] of variants) {
    const mine = samples.get(name) ?? [];
    const opsPerSecond = median(mine);
    const ratio = median(mine.map((each, index) => each / (none[index] ?? Number.NaN)));
    console.log(
      `${name.padEnd(20)} ${Math.round(opsPerSecond).toLocaleString('en-US').padStart(11)} ops/s` +
        `  ${(1e9 / opsPerSecond).toFixed(0).padStart(5)} ns/op  ratio to no SDK ${ratio.toFixed(3)}`,
    );
  }
  await Promise.all([metricsOnly.shutdown(), metricsAndSpans.shutdown()]);
}

async function benchRedis(): Promise<void> {
  const server = await startRedisServer();
  const client = new Redis({ host: server.host, port: server.port });
  const recording = sdk(true);
  const run = { inFlight: 64, operations: Number(process.env['BENCH_REDIS_OPERATIONS'] ?? 10_000), rounds: 25 };
  const side = (name: string, options: TelemetryOptions) => {
    const storage = new RedisCheckpointStorage(client, options);
    const tokens = Array.from({ length: run.inFlight }, () => 0n);
    return {
      name,
      write: (slot: number, sequence: number) => {
        tokens[slot] = (tokens[slot] ?? 0n) + 1n;
        return storage.save(
          `${name}-${slot}`,
          `position-${sequence}`,
          CheckpointWriteCondition.notOlderThan(tokens[slot]),
        );
      },
    };
  };
  try {
    const loadBefore = loadAverage();
    const comparison = await comparePaired(side('no-sdk', {}), side('metrics-and-spans', recording), run);
    console.log(
      `\nredis save notOlderThan: ${run.rounds} pairs of ${run.operations} writes each, ${run.inFlight} in flight, ` +
        `load average ${loadBefore} before and ${loadAverage()} after`,
    );
    for (const line of formatComparison(comparison, 'metrics and spans / no SDK')) {
      console.log(line);
    }
  } finally {
    client.disconnect();
    await server.stop();
    await recording.shutdown();
  }
}

await benchInMemory();
if (!process.argv.includes('--in-memory-only')) {
  await benchRedis();
}
