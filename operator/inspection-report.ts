import type { ReplicationInspection } from './operator-backend.js';
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

/** The report `inspect` prints as it reads: each batch as it comes, then the end. */
export interface InspectionReport {
  write(subscriptions: readonly JudgedSubscription[]): void;
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
    if (subscriptions.length === 0) {
      return;
    }
    const rows = subscriptions.map((subscription) =>
      JSON.stringify(inspectionJsonRow(subscription), null, 2).replace(/^/gmu, '  '),
    );
    this.#out(`${this.#rows === 0 ? '[\n' : ',\n'}${rows.join(',\n')}`);
    this.#rows += subscriptions.length;
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
