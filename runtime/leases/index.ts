export type { CompetingConsumerListener, CompetingConsumerStrategy } from './competing-consumer-strategy.js';
export { systemLeaseClock, type LeaseClock, type LeaseTimer } from './lease-clock.js';
export type { HeldLease, LeaseStore } from './lease-store.js';
export { LeaseKeepingStrategy, type LeaseKeepingStrategyOptions } from './lease-keeping-strategy.js';
