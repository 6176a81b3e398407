import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtPackage } from '../../support/built-package.js';

// With retryDelayMs 0, a run that ends at once (a catch-up source that ends, a handler that throws) is retried on the
// next turn of the event loop: timers, I/O and signal handlers still run. Before the fix it was retried on microtasks
// alone and the process never ran a timer again; the child runs the built package so the test worker cannot hang.

const script = (runtime: string, handler: string): string => `
import { DurableSubscription, InMemoryCheckpointStorage } from ${JSON.stringify(runtime)};
const subscription = new DurableSubscription({
  storage: new InMemoryCheckpointStorage(), retryDelayMs: 0, onError: () => undefined,
});
subscription.subscribe('orders', async function* () { yield { position: '0', event: 0 }; }, ${handler});
setTimeout(async () => { await subscription.shutdown(); console.log('timer fired, shut down'); }, 100);
`;

describe('retryDelayMs 0', () => {
  it.each([
    ['a source that ends', '() => undefined'],
    ['a failing handler', "() => { throw new Error('fails'); }"],
  ])(
    '%s: the event loop still runs timers, and shutdown() ends the process',
    (_, handler) => {
      const runtime = pathToFileURL(join(builtPackage('runtime'), 'dist/esm/runtime/index.mjs')).href;
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', script(runtime, handler)], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect({
        stdout: result.stdout.trim(),
        stderr: result.stderr,
        signal: result.signal,
        status: result.status,
      }).toEqual({
        stdout: 'timer fired, shut down',
        stderr: '',
        signal: null,
        status: 0,
      });
    },
    120_000,
  );
});
