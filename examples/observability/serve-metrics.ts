import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

/** The Prometheus endpoint a process serves its metrics on. */
export interface MetricsEndpoint {
  /** `http://127.0.0.1:<port>/metrics`. */
  readonly url: string;
  /** Stops serving and unregisters the global meter provider. */
  stop(): Promise<void>;
}

/**
 * Registers a global meter provider whose Prometheus exporter serves `/metrics` on `port`. Call it before making any
 * storage, strategy or subscription: each picks up the global provider when it is made (doc/observability.md).
 */
export async function serveMetrics(port: number): Promise<MetricsEndpoint> {
  let exporter: PrometheusExporter | undefined;
  await new Promise<void>((resolve, reject) => {
    exporter = new PrometheusExporter({ host: '127.0.0.1', port }, (error) => {
      if (error === undefined) {
        resolve();
      } else {
        reject(new Error(`could not serve /metrics on port ${port} (${error.message}); choose a free port`));
      }
    });
  });
  const provider = new MeterProvider({ readers: exporter === undefined ? [] : [exporter] });
  metrics.setGlobalMeterProvider(provider);
  return {
    url: `http://127.0.0.1:${port}/metrics`,
    stop: async () => {
      metrics.disable();
      await provider.shutdown();
    },
  };
}
