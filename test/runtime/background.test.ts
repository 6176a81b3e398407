import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorReporter, raceWithTimeout, ShutdownDeadline, timedOut } from '../../runtime/background/index.js';
import { ManualLeaseClock } from '../support/leases/manual-lease-clock.js';

describe('raceWithTimeout', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves to the work when it wins, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    expect(await raceWithTimeout(Promise.resolve('done'), 1_000)).toBe('done');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('resolves to timedOut when the time runs out first, and ignores a later rejection of the work', async () => {
    vi.useFakeTimers();
    let fail: (error: Error) => void = () => undefined;
    const work = new Promise<string>((_resolve, reject) => {
      fail = reject;
    });
    const race = raceWithTimeout(work, 1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await race).toBe(timedOut);
    fail(new Error('too late'));
    await vi.advanceTimersByTimeAsync(0);
  });

  it('rejects with the work when it fails in time', async () => {
    vi.useFakeTimers();
    await expect(raceWithTimeout(Promise.reject(new Error('broken')), 1_000)).rejects.toThrow('broken');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('runs on the timers it is given, such as a lease clock', async () => {
    const clock = new ManualLeaseClock();
    const race = raceWithTimeout(new Promise<never>(() => undefined), 500, clock);
    await clock.advance(499);
    await clock.advance(1);
    expect(await race).toBe(timedOut);
  });
});

describe('ShutdownDeadline', () => {
  it('lets later steps wait only for what is left of the 5 s', async () => {
    const clock = new ManualLeaseClock();
    const deadline = new ShutdownDeadline(clock);
    const never = new Promise<never>(() => undefined);
    const first = deadline.settle([never]);
    await clock.advance(4_000);
    let firstDone = false;
    void first.then(() => {
      firstDone = true;
    });
    await clock.advance(999);
    expect(firstDone).toBe(false);
    await clock.advance(1);
    expect(await first).toBe(false);
    const second = deadline.settle([never]);
    await clock.advance(0);
    expect(await second).toBe(false);
    expect(await deadline.settle([Promise.resolve(), Promise.reject(new Error('settled is enough'))])).toBe(true);
  });
});

describe('errorReporter', () => {
  it('passes errors and context to onError, and swallows what onError throws', () => {
    const seen: unknown[] = [];
    const report = errorReporter<[string]>(
      (error, id) => {
        seen.push([error, id]);
        throw new Error('a broken handler');
      },
      (id) => `subscription ${id}`,
    );
    const error = new Error('boom');
    expect(() => {
      report(error, 'orders');
    }).not.toThrow();
    expect(seen).toEqual([[error, 'orders']]);
  });

  it('warns on the console with the package name, where it happened, and the error', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      errorReporter<[string]>(undefined, (id) => `subscription "${id}"`)(new TypeError('bad'), 'orders');
      expect(warn).toHaveBeenCalledWith('checkpoint-fencing: subscription "orders":', 'TypeError: bad');
    } finally {
      warn.mockRestore();
    }
  });
});
