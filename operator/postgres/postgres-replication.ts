import type { WaitForStandbysOption } from 'checkpoint-fencing';
import type { ReplicationInspection } from '../operator-backend.js';

/** One physical walsender as `replicationInspectionStatement` reads it; every field but `name` null when hidden. */
interface WalSender {
  readonly name: string | null;
  readonly state: string | null;
  readonly sync: string | null;
  readonly promotable: boolean;
  /** Bytes its write position is behind the primary's flush position, as text. */
  readonly behind: string | null;
}

const guide = 'doc/postgres.md, "Replication and failover"';

/**
 * What `inspect` says about the replication of the PostgreSQL server it reads (the row of
 * `replicationInspectionStatement`), judged for an application whose stores run with `waitForStandbys: wait`: which
 * standbys stream and how, what the application waits for, and, flagged with `!`, a set-up in which a failover can
 * hand a token out twice or lose accepted writes, or that refuses every grant.
 */
export function judgeReplication(row: Record<string, unknown>, wait: WaitForStandbysOption): ReplicationInspection {
  const senders = (Array.isArray(row['walsenders']) ? row['walsenders'] : []) as WalSender[];
  const idleSlots = (Array.isArray(row['idle_slots']) ? row['idle_slots'] : []) as string[];
  const names = typeof row['synchronous_standby_names'] === 'string' ? row['synchronous_standby_names'] : '';
  const role = typeof row['role'] === 'string' ? row['role'] : '?';
  if (row['in_recovery'] === true) {
    return {
      lines: [
        'replication: this server is a standby (in recovery); grants and writes go to its primary: inspect the primary to see the standbys the application waits for',
      ],
      needsAttention: false,
      replicas: { synchronous: 0, asynchronous: 0 },
    };
  }
  const hidden = senders.filter(({ state }) => state === null);
  const standbys = senders.filter(({ promotable }) => promotable);
  const synchronous = standbys.filter(({ sync }) => sync === 'sync' || sync === 'quorum');
  const asynchronous = standbys.length - synchronous.length;
  const lines = [
    (standbys.length === 0
      ? 'replication: no standby streams from this primary'
      : `replication: ${standbys.length} ${standbys.length === 1 ? 'standby streams' : 'standbys stream'} from this primary: ` +
        standbys.map(describeStandby).join(', ')) + (names === '' ? '' : `; synchronous_standby_names '${names}'`),
  ];
  const waits = `waitForStandbys ${wait === 'auto' ? "'auto'" : String(wait)}`;
  if (wait === false) {
    if (asynchronous > 0) {
      lines.push(
        `! replication: failover-can-lose-grants: ${asynchronous} asynchronous ${asynchronous === 1 ? 'standby streams' : 'standbys stream'} and the ` +
          'application does not wait for them (--wait-for-standbys false): a failover to one can hand a token out twice and ' +
          `lose accepted writes. Leave waitForStandbys at 'auto' (the default) in the application (${guide})`,
      );
    } else if (standbys.length > 0) {
      lines.push(
        `replication: ${waits}: the synchronous standbys hold every commit before it is acknowledged, with no bound on the wait`,
      );
    }
  } else if (typeof wait === 'number' && standbys.length < wait) {
    lines.push(
      `! replication: ${waits}, but ${standbys.length} ${standbys.length === 1 ? 'standby streams' : 'standbys stream'}: ` +
        'every grant and conditional write of the application times out and fails',
    );
  } else if (standbys.length > 0 || names !== '') {
    lines.push(
      `replication: ${waits}: grants and conditional writes wait until ${wait === 'auto' ? 'one standby' : `${wait} standbys`}` +
        `${names === '' ? '' : ' (and the synchronous ones synchronous_standby_names asks for)'} wrote them`,
    );
  }
  if (hidden.length > 0) {
    lines.push(
      `! replication: ${hidden.length} ${hidden.length === 1 ? 'walsender streams' : 'walsenders stream'} whose positions role ${JSON.stringify(role)} ` +
        'cannot see (pg_read_all_stats; GRANT pg_monitor gives it): inspect cannot tell standbys from other WAL receivers, ' +
        'and an application running as this role has its grants and conditional writes refused unless waitForStandbys is false',
    );
  }
  if (idleSlots.length > 0) {
    lines.push(
      `! replication: physical replication ${idleSlots.length === 1 ? 'slot' : 'slots'} ${idleSlots.join(', ')} not in use: a standby ` +
        '(or WAL archiver) that is not streaming now. Nothing waits for it, so a failover to it loses what was written since it ' +
        `left; bring it back, or drop the slot of a standby gone for good (${guide})`,
    );
  }
  return {
    lines,
    needsAttention: lines.some((line) => line.startsWith('!')),
    replicas: { synchronous: synchronous.length, asynchronous },
  };
}

function describeStandby({ name, state, sync, behind }: WalSender): string {
  const lag = behind === null ? 'nothing written yet' : `written ${behind} bytes behind`;
  return `${name ?? '?'} (${sync ?? '?'}, ${state ?? '?'}, ${lag})`;
}
