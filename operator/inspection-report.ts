import { healthFlags, type JudgedSubscription } from './subscription-health.js';

// eslint-disable-next-line no-control-regex -- control characters are exactly what must not reach a terminal raw.
const needsQuotes = /[\s\u0000-\u001f\u007f-\u009f]/u;
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

/** The rows of `inspect --json`. */
export function inspectionJsonRows(subscriptions: readonly JudgedSubscription[]): InspectionJsonRow[] {
  return subscriptions.map((subscription) => ({
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
  }));
}

/** The text report: a table of every subscription, then each problem on a line of its own, then `summary`. */
export function inspectionText(subscriptions: readonly JudgedSubscription[], summary: string): string {
  const lines: string[] = [];
  if (subscriptions.length > 0) {
    const rows = [[...columns], ...subscriptions.map(tableRow)];
    const widths = columns.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
    for (const row of rows) {
      lines.push(
        row
          .map((cell, column) => cell.padEnd(widths[column] ?? 0))
          .join('  ')
          .trimEnd(),
      );
    }
  }
  for (const subscription of subscriptions) {
    const who = subscription.id === undefined ? 'version key' : `subscription ${JSON.stringify(subscription.id)}`;
    if (subscription.id === undefined) {
      lines.push(
        `? ${JSON.stringify(subscription.records['version'] ?? '')}: a version key whose subscription no checkpoint or lease key names (only a hash of the id is in the key)`,
      );
    }
    for (const problem of subscription.problems) {
      lines.push(`! ${who}: ${problem}`);
    }
  }
  lines.push(summary);
  return `${lines.join('\n')}\n`;
}

/** The summary line: how many subscriptions, how many need attention and for what, and what was read. */
export function inspectionSummary(
  subscriptions: readonly JudgedSubscription[],
  coverage: string,
  target: string,
  seconds: number,
): string {
  const counts = healthFlags
    .map((flag) => [flag, subscriptions.filter((subscription) => subscription.flags.includes(flag)).length] as const)
    .filter(([, count]) => count > 0)
    .map(([flag, count]) => `${flag} ${count}`);
  const withProblems = subscriptions.filter((subscription) => subscription.problems.length > 0).length;
  if (withProblems > 0) {
    counts.push(`problems ${withProblems}`);
  }
  const flagged = subscriptions.filter(
    (subscription) => subscription.flags.length > 0 || subscription.problems.length > 0,
  ).length;
  const found = `${subscriptions.length} ${subscriptions.length === 1 ? 'subscription' : 'subscriptions'}`;
  const health = flagged === 0 ? 'all healthy' : `${flagged} flagged (${counts.join(', ')})`;
  return `${found}, ${health}; ${coverage} (${target}, ${seconds.toFixed(1)} s)`;
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

/** A value as one table cell: quoted when it would not read as one word (empty, white space, control characters), cut to {@link cellWidth}. */
function cell(text: string): string {
  const shown =
    text === '' || needsQuotes.test(text)
      ? JSON.stringify(text).replace(/[\u007f-\u009f]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      : text;
  return shown.length > cellWidth ? `${shown.slice(0, cellWidth - 1)}…` : shown;
}
