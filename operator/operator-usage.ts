import { PACKAGE_NAME } from '../vocabulary/index.js';

/** The operator commands, as the bin dispatches them. */
export const operatorCommandNames = ['inspect', 'repair', 'reset'] as const;

/** One of {@link operatorCommandNames}. */
export type OperatorCommandName = (typeof operatorCommandNames)[number];

const store = `Where (one of):
  --redis <url>                 redis://[user[:password]@]host[:port][/db], rediss:// for TLS
    --cluster                   the URL is one node of a Redis Cluster: every master it announces is read
    --key-prefix <P>            the storage's keyPrefix (default: none)
    --version-key-prefix <V>    the storage's versionKeyPrefix (default: checkpoint-fencing:version:)
    --lease-key-prefix <L>      the lease strategy's keyPrefix (default: checkpoint-fencing:lease:)
    --membership-key-prefix <M> RedisMembership's keyPrefix (default: checkpoint-fencing:members:)
    --wait-for-replicas <W>     the application's waitForReplicas: auto (default), false or a number
    --sentinel <url>            a Sentinel monitoring the server: inspect reports the replicas it knows too
  --postgres <url>              postgres://[user[:password]@]host[:port]/database[?sslmode=disable|require|verify-full]
    --schema <S>                the schema of both tables (default: the server's search_path)
    --table <T>                 the checkpoint table (default: checkpoint_fencing_checkpoints)
    --lease-table <LT>          the lease table (default: checkpoint_fencing_leases)
    --membership-table <MT>     PostgresMembership's table (default: checkpoint_fencing_members)
    --wait-for-standbys <W>     the application's waitForStandbys: auto (default), false or a number
  --timeout-ms <n>              give up on a server that does not answer within n ms (default: 10000)
Connects only to the URLs given (with --cluster, to them and the nodes announced) and never prints a password.
Needs ioredis (--redis) or pg (--postgres) installed in the project it runs in.`;

/** `--help` of each command. */
export const operatorUsage: Record<OperatorCommandName, string> = {
  inspect: `Usage: ${PACKAGE_NAME} inspect (--redis <url> | --postgres <url>) [options] [--json | --prometheus] [ids…]

Shows every subscription's checkpoint, stored version, lease holder, lease token, time to expiry, the next token a
grant mints, and health flags: stuck, unfenceable, stray-version, no-version, expired-lease, unowned
(doc/operations.md). A partitioned subscription (one a membership records) is shown as a group: its live members, each
partition's owner, token and checkpoint, and the partitions no node owns flagged unowned; name it by its name.
Without ids, reads every subscription (Redis: SCAN on every master, never KEYS). On PostgreSQL, first the standbys
streaming from the server and whether a failover can lose grants with the application's waitForStandbys. Reads only.
  --json                        print the rows as JSON
  --prometheus                  print the health figures as Prometheus text (counts, no ids)
${store}
Exit codes: 0 all healthy, 1 a flag raised, a value no storage writes or a replication set-up flagged, 2 error.`,
  repair: `Usage: ${PACKAGE_NAME} repair <id…> --raise-token [--yes] (--redis <url> | --postgres <url>) [options]

Raises each stuck subscription's token counter past its stored version with the lease strategy's own
raiseFencingTokenAbove, so that the next hand-over fences and delivers with nothing replayed.
  --raise-token                 the repair to make (the only one there is)
  --yes                         make it; without --yes, print what would be done and change nothing
${store}
Exit codes: 0 done (or, without --yes, what would be done printed), 2 error.`,
  reset: `Usage: ${PACKAGE_NAME} reset <id…> --yes (--redis <url> | --postgres <url>) [options]

Deletes each subscription's checkpoint and keeps its version as the fence, raised (with the token counter) above every
token minted for it: no earlier holder writes again, and delivery restarts from the subscription's start position, so
every event since is delivered again. Refuses a subscription with a live lease: stop its consumers first.
  --yes                         reset; without --yes, print what would be done and change nothing
${store}
Exit codes: 0 done (or, without --yes, what would be done printed), 2 error.`,
};
