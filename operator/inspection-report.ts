import type { ReplicationInspection } from './operator-backend.js';
import type { JudgedPartitionedSubscription, RecordedMember } from './partitioned-subscription-health.js';
import { hasActedOnCharacter, printable } from './printable-text.js';
import type { JudgedSubscription } from './subscription-health.js';

// eslint-disable-next-line no-control-regex -- control characters are exactly what must not reach a terminal raw.
const spaceOrControl = /[\s\u0000-\u001f]/u;
/** The longest cell of the text table; the JSON report has every value whole. */
const cellWidth = 40;
const columns = [
  'SUBSCRIPTION',
  'CHECKPOINT',
  'VERSION',
  'HOLDER',
  'TOKEN',
  'EXPIRES IN',
  'NEXT TOKEN',
  'FLAGS',
] as const;

/** One subscription in `inspect --json`: versions and tokens as decimal strings, so that none loses digits. */
export interface InspectionJsonRow {
  readonly id: string | null;
  readonly checkpoint: string | null;
  readonly storedVersion: string | null;
  readonly leaseHolder: string | null;
  readonly leaseToken: string | null;
  /** Milliseconds until the lease expires; negative for an expired one still recorded; null with no lease or no expiry. */
  readonly expiresInMs: number | null;
  readonly nextToken: string | null;
  readonly flags: readonly string[];
  readonly problems: readonly string[];
  readonly records: Readonly<Record<string, string>>;
}

/** One row of `inspect --json`. */
export function inspectionJsonRow(subscription: JudgedSubscription): InspectionJsonRow {
  return {
    id: subscription.id ?? null,
    checkpoint: subscription.checkpoint ?? null,
    storedVersion: subscription.storedVersion?.toString() ?? null,
    leaseHolder: subscription.lease?.holder ?? null,
    leaseToken: subscription.lease?.token.toString() ?? null,
    expiresInMs: subscription.lease?.expiresInMs ?? null,
    nextToken: subscription.nextToken?.toString() ?? null,
    flags: subscription.flags,
    problems: subscription.problems,
    records: subscription.records,
  };
}

/** One partition in `inspect --json`: its subscription id's row, with its partition and its owner's node id. */
export interface PartitionJsonRow extends InspectionJsonRow {
  readonly partition: number;
  /** The node id of the live lease's holder; null while no node owns the partition. */
  readonly owner: string | null;
}

/** A partitioned subscription in `inspect --json`: an element of the same array as the rows, told apart by its key. */
export interface PartitionedInspectionJsonRow {
  /** The subscription's name; its partitions' ids are `<name>/<partition>`. */
  readonly partitionedSubscription: string;
  readonly partitions: number;
  readonly members: readonly RecordedMember[];
  /** The partitions no node owns. */
  readonly unowned: readonly number[];
  /** `unowned` when a partition has no owner. */
  readonly flags: readonly string[];
  readonly problems: readonly string[];
  readonly records: Readonly<Record<string, string>>;
  readonly partitionRows: readonly PartitionJsonRow[];
}

/** The element of `inspect --json` for a partitioned subscription. */
export function partitionedJsonRow(group: JudgedPartitionedSubscription): PartitionedInspectionJsonRow {
  const { membership } = group;
  return {
    partitionedSubscription: membership.name,
    partitions: membership.partitions,
    members: membership.members,
    unowned: group.unowned,
    flags: group.unowned.length > 0 ? ['unowned'] : [],
    problems: membership.problems,
    records: membership.records,
    partitionRows: group.partitions.map((partition) => ({
      ...inspectionJsonRow(partition),
      partition: partition.partition,
      owner: partition.owner ?? null,
    })),
  };
}

/** The report `inspect` prints as it reads: each batch as it comes, each partitioned subscription whole, then the end. */
export interface InspectionReport {
  write(subscriptions: readonly JudgedSubscription[]): void;
  /** A partitioned subscription, after every other subscription was written. */
  partitioned(group: JudgedPartitionedSubscription): void;
  /** The replication of the server read, before any subscription, where the store reports it. */
  replication?(inspection: ReplicationInspection): void;
  /** Ends the report; `summary` is the line the text report ends with. */
  end(summary: string): void;
}

/**
 * `inspect --json`: one JSON array, each row printed as it comes, byte for byte what `JSON.stringify(rows, null, 2)`
 * prints for the whole array; nothing else on stdout.
 */
export class JsonInspectionReport implements InspectionReport {
  readonly #out: (text: string) => void;
  #rows = 0;

  constructor(out: (text: string) => void) {
    this.#out = out;
  }

  write(subscriptions: readonly JudgedSubscription[]): void {
    this.#writeRows(subscriptions.map(inspectionJsonRow));
  }

  partitioned(group: JudgedPartitionedSubscription): void {
    this.#writeRows([partitionedJsonRow(group)]);
  }

  #writeRows(rows: readonly object[]): void {
    if (rows.length === 0) {
      return;
    }
    const printed = rows.map((row) => JSON.stringify(row, null, 2).replace(/^/gmu, '  '));
    this.#out(`${this.#rows === 0 ? '[\n' : ',\n'}${printed.join(',\n')}`);
    this.#rows += rows.length;
  }

  end(): void {
    this.#out(this.#rows === 0 ? '[]\n' : '\n]\n');
  }
}

/**
 * The text report: a table of the subscriptions, each batch's problems on lines of their own under its rows, then the
 * summary line. Columns are as wide as the widest cell among the header and the first `widthSampleRows` rows, which
 * are held until then; later rows are printed at once, and a wider cell among them pushes the rest of its row right,
 * always two spaces from the next cell. A report of up to `widthSampleRows` rows is one table aligned on all of them.
 */
export class TextInspectionReport implements InspectionReport {
  readonly #out: (text: string) => void;
  readonly #widthSampleRows: number;
  #held: JudgedSubscription[] = [];
  #widths: number[] | undefined;

  constructor(out: (text: string) => void, widthSampleRows = 1_000) {
    this.#out = out;
    this.#widthSampleRows = widthSampleRows;
  }

  replication({ lines }: ReplicationInspection): void {
    this.#out(lines.map((line) => `${line}\n`).join(''));
  }

  write(subscriptions: readonly JudgedSubscription[]): void {
    if (this.#widths !== undefined) {
      this.#print(subscriptions, this.#widths);
      return;
    }
    this.#held.push(...subscriptions);
    if (this.#held.length >= this.#widthSampleRows) {
      this.#printHeld();
    }
  }

  /**
   * The group: a line naming it, a table of its live members, a table of its partitions (each a subscription id, as
   * `repair` and `reset` take it), and a `!` line naming the partitions no node owns. The table above is printed first.
   */
  partitioned({ membership, partitions, unowned }: JudgedPartitionedSubscription): void {
    if (this.#widths === undefined && this.#held.length > 0) {
      this.#printHeld();
    }
    const { name, members } = membership;
    const memberRows = members.map((member) => [
      cell(member.nodeId),
      `${(member.memberForMs / 1_000).toFixed(1)} s ago`,
      timeToExpiry(member.expiresInMs),
      member.owned.length === 0 ? '-' : `${member.owned.length} (${partitionRanges(member.owned)})`,
    ]);
    const partitionRows = partitions.map((partition) => [
      cell(partition.id ?? ''),
      optionalCell(partition.owner),
      partition.owner === undefined ? '-' : (partition.lease?.token.toString() ?? '-'),
      optionalCell(partition.checkpoint),
      optionalCell(partition.storedVersion?.toString()),
      partition.owner === undefined ? '-' : timeToExpiry(partition.lease?.expiresInMs),
      partition.flags.length === 0 ? '-' : partition.flags.join(','),
    ]);
    const who = `partitioned subscription ${JSON.stringify(name)}`;
    const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
    const lines = [
      '',
      `partitioned subscription ${cell(name)}: ${count(membership.partitions, 'partition', 'partitions')}, ` +
        `${count(members.length, 'live member', 'live members')}, ${unowned.length} unowned`,
      ...table(['MEMBER', 'JOINED', 'EXPIRES IN', 'OWNS'], memberRows),
      ...table(['PARTITION', 'OWNER', 'TOKEN', 'CHECKPOINT', 'VERSION', 'EXPIRES IN', 'FLAGS'], partitionRows),
      ...membership.problems.map((problem) => `! ${who}: ${problem}`),
      ...partitions.flatMap(noteLines),
      ...(unowned.length === 0
        ? []
        : [
            `! ${who}: ${unowned.length} of ${membership.partitions} partitions have no owner (${partitionRanges(unowned)}), ` +
              'so nobody delivers them until a node takes their leases; start (or fix) a node of the subscription',
          ]),
    ];
    this.#out(`${lines.join('\n')}\n`);
  }

  end(summary: string): void {
    if (this.#widths === undefined && this.#held.length > 0) {
      this.#printHeld();
    }
    this.#out(`${summary}\n`);
  }

  #printHeld(): void {
    const rows = this.#held.map(tableRow);
    const widths = columns.map((_, column) =>
      Math.max(...[[...columns], ...rows].map((row) => row[column]?.length ?? 0)),
    );
    this.#widths = widths;
    this.#out(`${tableLine([...columns], widths)}\n`);
    this.#print(this.#held, widths, rows);
    this.#held = [];
  }

  #print(
    subscriptions: readonly JudgedSubscription[],
    widths: readonly number[],
    rows: readonly string[][] = subscriptions.map(tableRow),
  ): void {
    const lines = [...rows.map((row) => tableLine(row, widths)), ...subscriptions.flatMap(noteLines)];
    if (lines.length > 0) {
      this.#out(`${lines.join('\n')}\n`);
    }
  }
}

/** A header and its rows, each column as wide as its widest cell; nothing for no rows. */
function table(header: readonly string[], rows: readonly string[][]): string[] {
  if (rows.length === 0) {
    return [];
  }
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => row[column]?.length ?? 0)));
  return [header, ...rows].map((row) => tableLine(row, widths));
}

/** Partitions as ranges: `0-3,7,9-10`. */
function partitionRanges(partitions: readonly number[]): string {
  const ranges: string[] = [];
  for (let index = 0; index < partitions.length;) {
    const first = partitions[index] ?? 0;
    let last = first;
    while (partitions[index + 1] === last + 1) {
      index += 1;
      last += 1;
    }
    ranges.push(first === last ? `${first}` : `${first}-${last}`);
    index += 1;
  }
  return ranges.join(',');
}

function tableLine(row: readonly string[], widths: readonly number[]): string {
  return row
    .map((cell, column) => cell.padEnd(widths[column] ?? 0))
    .join('  ')
    .trimEnd();
}

/** The `?` line of a version key whose subscription is unknown, and a `!` line for each problem. */
function noteLines(subscription: JudgedSubscription): string[] {
  const who = subscription.id === undefined ? 'version key' : `subscription ${JSON.stringify(subscription.id)}`;
  const lines =
    subscription.id === undefined
      ? [
          `? ${JSON.stringify(subscription.records['version'] ?? '')}: a version key whose subscription no checkpoint or lease key names (only a hash of the id is in the key)`,
        ]
      : [];
  return [...lines, ...subscription.problems.map((problem) => `! ${who}: ${problem}`)];
}

function tableRow(subscription: JudgedSubscription): string[] {
  const lease = subscription.lease;
  return [
    subscription.id === undefined ? '?' : cell(subscription.id),
    optionalCell(subscription.checkpoint),
    optionalCell(subscription.storedVersion?.toString()),
    lease === undefined ? '-' : holderName(lease.holder),
    lease === undefined ? '-' : lease.token.toString(),
    lease === undefined ? '-' : timeToExpiry(lease.expiresInMs),
    optionalCell(subscription.nextToken?.toString()),
    subscription.flags.length === 0 ? '-' : subscription.flags.join(','),
  ];
}

/** `"node-a 6f1c2d3e-…/1"` as `node-a 6f1c2d3e/1`: the subscriber id and enough of the instance to tell two apart. */
function holderName(owner: string): string {
  const parts = /^(.*) ([0-9a-f]{8})-[0-9a-f-]{27}\/([0-9]+)$/su.exec(owner);
  return parts === null ? cell(owner) : `${cell(parts[1] ?? '')} ${parts[2] ?? ''}/${parts[3] ?? ''}`;
}

function timeToExpiry(expiresInMs: number | undefined): string {
  if (expiresInMs === undefined) {
    return 'never';
  }
  const seconds = (Math.abs(expiresInMs) / 1_000).toFixed(1);
  return expiresInMs > 0 ? `${seconds} s` : `expired ${seconds} s ago`;
}

function optionalCell(text: string | undefined): string {
  return text === undefined ? '-' : cell(text);
}

/**
 * A value as one table cell: quoted, and escaped as {@link printable} escapes, when it would not read as one word
 * (empty, white space, a control or a bidi character), cut to {@link cellWidth}.
 */
function cell(text: string): string {
  const shown =
    text === '' || spaceOrControl.test(text) || hasActedOnCharacter(text) ? printable(JSON.stringify(text)) : text;
  return shown.length > cellWidth ? `${shown.slice(0, cellWidth - 1)}…` : shown;
}
