import type { JudgedPartitionedSubscription } from './partitioned-subscription-health.js';
import { healthFlags, needsAttention, type HealthFlag, type JudgedSubscription } from './subscription-health.js';

/**
 * What `inspect`'s summary line and exit code need, counted as the subscriptions go by, so that neither holds them:
 * how many, how many need attention, and for what.
 */
export class InspectionTally {
  #subscriptions = 0;
  #flagged = 0;
  #withProblems = 0;
  readonly #byFlag = new Map<HealthFlag, number>();

  /** Counts `subscriptions` in. */
  add(subscriptions: readonly JudgedSubscription[]): void {
    for (const subscription of subscriptions) {
      this.#subscriptions += 1;
      this.#flagged += needsAttention(subscription) ? 1 : 0;
      this.#withProblems += subscription.problems.length > 0 ? 1 : 0;
      for (const flag of subscription.flags) {
        this.#byFlag.set(flag, (this.#byFlag.get(flag) ?? 0) + 1);
      }
    }
  }

  /** Counts a partitioned subscription's partitions in, and its membership's problems as one that needs attention. */
  addPartitioned({ membership, partitions }: JudgedPartitionedSubscription): void {
    this.add(partitions);
    if (membership.problems.length > 0) {
      this.#flagged += 1;
      this.#withProblems += 1;
    }
  }

  /** True when a subscription counted in needs attention: `inspect` exits 1. */
  get needsAttention(): boolean {
    return this.#flagged > 0;
  }

  /** The summary line: how many subscriptions, how many need attention and for what, and what was read. */
  summary(coverage: string, target: string, seconds: number): string {
    const counts = healthFlags
      .filter((flag) => this.#byFlag.has(flag))
      .map((flag) => `${flag} ${this.#byFlag.get(flag) ?? 0}`);
    if (this.#withProblems > 0) {
      counts.push(`problems ${this.#withProblems}`);
    }
    const found = `${this.#subscriptions} ${this.#subscriptions === 1 ? 'subscription' : 'subscriptions'}`;
    const health = this.#flagged === 0 ? 'all healthy' : `${this.#flagged} flagged (${counts.join(', ')})`;
    return `${found}, ${health}; ${coverage} (${target}, ${seconds.toFixed(1)} s)`;
  }
}
