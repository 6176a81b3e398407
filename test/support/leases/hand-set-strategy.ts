import type { CompetingConsumerListener, CompetingConsumerStrategy } from '../../../runtime/index.js';

/**
 * A strategy whose lock and token the test sets by hand, for the subscription `orders` of subscriber `node-a`. It
 * records the calls that give the lease up, in order, in `calls`.
 */
export class HandSetStrategy implements CompetingConsumerStrategy {
  lock = false;
  token: bigint | undefined = undefined;
  readonly registered = new Set<string>();
  /** `release`, `unregister` and `raiseFencingTokenAbove <version>`, in the order they were called. */
  readonly calls: string[] = [];
  readonly #granted = new Set<CompetingConsumerListener>();
  readonly #prohibited = new Set<CompetingConsumerListener>();

  /** Hands `orders` to `node-a` with `token` and tells the listeners. */
  grant(token: bigint): void {
    this.lock = true;
    this.token = token;
    for (const listener of this.#granted) {
      listener('orders', 'node-a');
    }
  }

  /** Takes the lease away, as a refresh that found it gone would, and tells the listeners. */
  lose(): void {
    this.lock = false;
    this.token = undefined;
    for (const listener of this.#prohibited) {
      listener('orders', 'node-a');
    }
  }

  async register(subscriptionId: string): Promise<boolean> {
    this.registered.add(subscriptionId);
    return this.lock;
  }
  async unregister(subscriptionId: string): Promise<void> {
    this.calls.push('unregister');
    this.registered.delete(subscriptionId);
  }
  async release(): Promise<void> {
    this.calls.push('release');
    this.lock = false;
  }
  async raiseFencingTokenAbove(_subscriptionId: string, version: bigint): Promise<void> {
    this.calls.push(`raiseFencingTokenAbove ${version}`);
  }
  hasLock(): boolean {
    return this.lock;
  }
  fencingToken(): bigint | undefined {
    return this.token;
  }
  onGranted(listener: CompetingConsumerListener): () => void {
    this.#granted.add(listener);
    return () => this.#granted.delete(listener);
  }
  onProhibited(listener: CompetingConsumerListener): () => void {
    this.#prohibited.add(listener);
    return () => this.#prohibited.delete(listener);
  }
  async shutdown(): Promise<void> {
    this.lock = false;
  }
}
