/** Settings the partitioned-consumers demo and its node processes share. */
export const demoName = 'demo-orders';
export const demoPartitions = 8;
export const demoEventsKey = 'demo:partitions:events';
/** The key prefix of the handlers' own projection, one value per partition under `<name>/<partition>`. */
export const demoProjectionPrefix = 'demo:partitions:projection:';
/** Short, so hand-overs are quick to watch; the library's default is 20 s. */
export const demoLeaseTimeMs = 2_000;
/** A node is taken for dead 1.5 s after its last heartbeat; heartbeats every 500 ms, settle window 750 ms. */
export const demoMemberTimeMs = 1_500;
export const demoDrainTimeoutMs = 500;
/** CPU each event costs its handler, in milliseconds. */
export const handlerCpuMs = 0.5;

/** An event of the shared log: `<stream>:<n>`; its stream is its partition key. */
export function streamOf(event: string): string {
  return event.slice(0, event.indexOf(':'));
}
