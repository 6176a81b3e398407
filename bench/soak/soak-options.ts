import { parseArgs } from 'node:util';

/** What one soak run does; every bound has a ceiling so a run always stops by itself. */
export interface SoakOptions {
  readonly seconds: number;
  /** Run on a real three-master Cluster instead of one redis-server. */
  readonly cluster: boolean;
  /** Run on a real PostgreSQL server with PostgresCheckpointStorage and PostgresLeaseStrategy instead of Redis. */
  readonly postgres: boolean;
  /** Run on a master, a replica and three Sentinels, failing the master over (SIGKILL) among the faults. */
  readonly sentinel: boolean;
  /** Run on a PostgreSQL primary and a streaming standby, killing the primary and promoting the standby among the faults. */
  readonly postgresFailover: boolean;
  /**
   * Whether the PostgreSQL storages and lease strategies wait for standbys, their default. False
   * (`--no-wait-for-standbys`, with `--postgres-failover`) is that soak's negative control.
   */
  readonly waitForStandbys: boolean;
  /**
   * Whether the Redis storages and lease strategies wait for replicas, their default. False (`--no-wait-for-replicas`,
   * Sentinel only) is the failover soak's negative control: it must report duplicated tokens or anomalies.
   */
  readonly waitForReplicas: boolean;
  /**
   * Sentinel only (`--deposed-master`): adds the master-pause fault, the master stopped until its replica is promoted
   * and then continued, so clients still connected to it use a deposed master until the Sentinels convert it.
   */
  readonly deposedMaster: boolean;
  /**
   * Sentinel only (`--partition`): a master with two replicas, every server and Sentinel behind a door, and the
   * minority-partition fault among the others: the master, one replica and one Sentinel cut off from the rest while
   * half the workers stay on their side, the other replica promoted by the majority, the partition healed later.
   */
  readonly partition: boolean;
  /**
   * `--partitions`: the churn soak of a PartitionedSubscription (partition-churn-soak.ts) instead: node processes join,
   * leave, are killed and stopped beyond their lease on one redis-server; takes only `--seconds`.
   */
  readonly partitions: boolean;
  /**
   * Sentinel and PostgreSQL failover only (`--min-failovers N`): the fewest failovers the run must drive; fewer end it
   * with exit code 4, since a run that failed over too rarely says little about failovers. 0 (the default) asks for none.
   */
  readonly minFailovers: number;
  readonly workers: number;
  readonly subscriptions: number;
  readonly leaseMs: number;
  /** Stop early once this many operations have been recorded, so the history stays checkable. */
  readonly maxOperations: number;
  /**
   * Negative control: run redis-server without persistence, so each restart loses acknowledged writes and the lease
   * token counter. The soak must then report anomalies and exit 1; if it does not, it proves nothing.
   */
  readonly loseWritesOnRestart: boolean;
}

const usage =
  'Usage: npm run soak -- --seconds N [--partitions | --cluster | --postgres | --sentinel [--no-wait-for-replicas] [--deposed-master] [--partition] [--min-failovers N] ' +
  '| --postgres-failover [--no-wait-for-standbys] [--min-failovers N]] ' +
  '[--workers 4] [--subscriptions 2] ' +
  '[--lease-ms 600] [--max-operations 200000] [--lose-writes-on-restart]';

/** Parses the soak's command line. @throws Error naming the bad flag, its bounds and the usage line. */
export function parseSoakOptions(argv: readonly string[]): SoakOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      seconds: { type: 'string', default: '20' },
      cluster: { type: 'boolean', default: false },
      postgres: { type: 'boolean', default: false },
      sentinel: { type: 'boolean', default: false },
      'postgres-failover': { type: 'boolean', default: false },
      'no-wait-for-standbys': { type: 'boolean', default: false },
      'no-wait-for-replicas': { type: 'boolean', default: false },
      'deposed-master': { type: 'boolean', default: false },
      partition: { type: 'boolean', default: false },
      partitions: { type: 'boolean', default: false },
      'min-failovers': { type: 'string', default: '0' },
      workers: { type: 'string', default: '4' },
      subscriptions: { type: 'string', default: '2' },
      'lease-ms': { type: 'string', default: '600' },
      'max-operations': { type: 'string', default: '200000' },
      'lose-writes-on-restart': { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.cluster && values['lose-writes-on-restart']) {
    throw new Error(
      `--lose-writes-on-restart needs a standalone redis-server (the Cluster soak restarts no node); drop --cluster.\n${usage}`,
    );
  }
  if (values.postgres && (values.cluster || values['lose-writes-on-restart'])) {
    throw new Error(
      `--postgres runs on one PostgreSQL server and restarts it crash-like without losing commits; it takes neither --cluster nor --lose-writes-on-restart.\n${usage}`,
    );
  }
  if (values.sentinel && (values.cluster || values.postgres || values['lose-writes-on-restart'])) {
    throw new Error(
      `--sentinel runs on a master, a replica and three Sentinels; it takes none of --cluster, --postgres, --lose-writes-on-restart.\n${usage}`,
    );
  }
  if (values['no-wait-for-replicas'] && !values.sentinel) {
    throw new Error(`--no-wait-for-replicas is the Sentinel soak's negative control; add --sentinel.\n${usage}`);
  }
  if (values['deposed-master'] && !values.sentinel) {
    throw new Error(
      `--deposed-master stops a Sentinel-managed master until it is failed over; add --sentinel.\n${usage}`,
    );
  }
  if (values.partition && !values.sentinel) {
    throw new Error(`--partition cuts a Sentinel-managed master off in a minority; add --sentinel.\n${usage}`);
  }
  if (
    values['postgres-failover'] &&
    (values.cluster || values.postgres || values.sentinel || values['lose-writes-on-restart'])
  ) {
    throw new Error(
      `--postgres-failover runs on a PostgreSQL primary and its standby; it takes none of --cluster, --postgres, --sentinel, --lose-writes-on-restart.\n${usage}`,
    );
  }
  if (values['no-wait-for-standbys'] && !values['postgres-failover']) {
    throw new Error(
      `--no-wait-for-standbys is the PostgreSQL failover soak's negative control; add --postgres-failover.\n${usage}`,
    );
  }
  if (
    values.partitions &&
    argv.some(
      (argument) => argument.startsWith('--') && !['--partitions', '--seconds'].includes(argument.split('=')[0] ?? ''),
    )
  ) {
    throw new Error(
      `--partitions runs the partition churn soak on its own redis-server; it takes only --seconds.\n${usage}`,
    );
  }
  const minFailovers = bounded('--min-failovers', values['min-failovers'], 0, 1_000);
  if (minFailovers > 0 && !values.sentinel && !values['postgres-failover']) {
    throw new Error(
      `--min-failovers counts the failovers of a failover soak; add --sentinel or --postgres-failover.\n${usage}`,
    );
  }
  return {
    seconds: bounded('--seconds', values.seconds, 1, 3_600),
    cluster: values.cluster,
    postgres: values.postgres,
    sentinel: values.sentinel,
    postgresFailover: values['postgres-failover'],
    waitForStandbys: !values['no-wait-for-standbys'],
    waitForReplicas: !values['no-wait-for-replicas'],
    deposedMaster: values['deposed-master'],
    partition: values.partition,
    partitions: values.partitions,
    minFailovers,
    workers: bounded('--workers', values.workers, 2, 16),
    subscriptions: bounded('--subscriptions', values.subscriptions, 1, 16),
    leaseMs: bounded('--lease-ms', values['lease-ms'], 90, 10_000),
    maxOperations: bounded('--max-operations', values['max-operations'], 100, 2_000_000),
    loseWritesOnRestart: values['lose-writes-on-restart'],
  };
}

function bounded(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new Error(`${flag} ${JSON.stringify(text)} is not a whole number from ${min} to ${max}.\n${usage}`);
  }
  return value;
}
