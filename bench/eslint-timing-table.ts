/** One row of ESLint's `TIMING` table: a rule and the milliseconds it took. */
export interface RuleTiming {
  readonly rule: string;
  readonly milliseconds: number;
}

/**
 * The rows of the table ESLint prints when `TIMING=all` is set:
 * `Rule | Time (ms) | Relative` followed by `name | 12.345 | 3.4%` lines.
 */
export function parseTimingTable(output: string): RuleTiming[] {
  const rows: RuleTiming[] = [];
  for (const line of output.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const [rule, time] = cells;
    const milliseconds = Number(time);
    if (
      cells.length === 3 &&
      rule !== undefined &&
      rule !== 'Rule' &&
      !rule.startsWith(':') &&
      Number.isFinite(milliseconds)
    ) {
      rows.push({ rule, milliseconds });
    }
  }
  return rows;
}
