import { describe, expect, it } from 'vitest';
import { SharedServer, type StartedSharedServer } from '../support/projects/index.js';

/** A stand-in server that counts its starts and stops; `failStarts` of the first starts reject. */
function countingServer(failStarts = 0): { starts: number; stops: number; shared: SharedServer } {
  const counts = { starts: 0, stops: 0 };
  const shared = new SharedServer(async (): Promise<StartedSharedServer> => {
    counts.starts += 1;
    if (counts.starts <= failStarts) {
      throw new Error(`start ${counts.starts} failed`);
    }
    return {
      provideTo: () => undefined,
      stop: async () => {
        counts.stops += 1;
      },
    };
  });
  return Object.assign(counts, { shared });
}

describe('SharedServer', () => {
  it('starts once for every project that acquires it, and stops after the last release only', async () => {
    const server = countingServer();
    const [first, second] = await Promise.all([server.shared.acquire(), server.shared.acquire()]);
    expect(second).toBe(first);
    expect(server.starts).toBe(1);
    await server.shared.release();
    expect(server.stops).toBe(0);
    await server.shared.release();
    expect(server.stops).toBe(1);
  });

  it('starts a new server for a project that acquires it after the last release', async () => {
    const server = countingServer();
    await server.shared.acquire();
    await server.shared.release();
    await server.shared.acquire();
    expect([server.starts, server.stops]).toEqual([2, 1]);
    await server.shared.release();
    expect(server.stops).toBe(2);
  });

  it('rejects every waiter of a failed start, then starts again on the next acquire', async () => {
    const server = countingServer(1);
    const outcomes = await Promise.allSettled([server.shared.acquire(), server.shared.acquire()]);
    expect(outcomes.map(({ status }) => status)).toEqual(['rejected', 'rejected']);
    expect(server.starts).toBe(1);
    await server.shared.acquire();
    expect(server.starts).toBe(2);
    await server.shared.release();
    expect(server.stops).toBe(1);
  });
});
