import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

// Setup file of the unit project: a unit test starts no child process and opens no socket (doc/testing.md). This
// makes a file that does so fail at once with the reason, instead of quietly making `npm run test:unit` need servers,
// builds or a network.
function refuse(what: string): () => never {
  return () => {
    throw new Error(
      `${what} was called from a unit test. Unit tests start no child process and open no connection; name the file ` +
        '*.process.test.ts (child processes, builds) or *.redis.test.ts / *.cluster.test.ts / *.postgres.test.ts ' +
        '(servers) to move it to the project that allows it (doc/testing.md).',
    );
  };
}

for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  Object.defineProperty(childProcess, name, { value: refuse(`child_process.${name}()`), configurable: true });
}
Object.defineProperty(net.Socket.prototype, 'connect', { value: refuse('net.Socket#connect()'), configurable: true });
// ES module imports of node:child_process read the patched functions only after this.
syncBuiltinESMExports();
