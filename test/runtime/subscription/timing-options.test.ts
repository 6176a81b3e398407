import { describe, expect, it } from 'vitest';
import { DurableSubscription, InMemoryCheckpointStorage, InMemoryLeaseStrategy } from '../../../runtime/index.js';

// A wait of NaN (Number(process.env.X) with the variable unset), a negative one or one beyond Node's longest timer
// would make every retry immediate; DurableSubscription refuses them when it is built, as LeaseKeepingStrategy refuses
// a bad leaseTimeMs.

describe('DurableSubscription timing options', () => {
  it.each([
    ['retryDelayMs', Number.NaN, 'NaN'],
    ['retryDelayMs', -1, '-1'],
    ['retryDelayMs', 2_147_483_648, '2147483648'],
    ['retryDelayMs', '50', '"50"'],
    ['holdBackPollMs', Number.NaN, 'NaN'],
    ['holdBackPollMs', -0.5, '-0.5'],
    ['takeoverGraceMs', Number.POSITIVE_INFINITY, 'Infinity'],
    ['takeoverGraceMs', -10, '-10'],
  ])('%s %s is refused at construction with a RangeError naming it, the value and the range', (name, value, shown) => {
    expect(() => new DurableSubscription({ storage: new InMemoryCheckpointStorage(), [name]: value })).toThrow(
      new RangeError(
        `${name} must be a number of milliseconds from 0 to 2147483647 (the longest timer Node has); got ${shown}.`,
      ),
    );
  });

  it.each([
    ['retryDelayMs', 0],
    ['holdBackPollMs', 0],
    ['takeoverGraceMs', 0],
    ['retryDelayMs', 2_147_483_647],
  ])('%s %s is taken', (name, value) => {
    const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 300 });
    expect(
      () => new DurableSubscription({ storage: new InMemoryCheckpointStorage(), strategy, [name]: value }),
    ).not.toThrow();
  });
});
