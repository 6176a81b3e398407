import { beforeAll, describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../../runtime/index.js';
import { useSharedRedis } from '../support/redis/index.js';
import { builtBin, runCli } from './support/operator-cli.js';
import { runInProcess, type PrintedOutput } from './support/secret-urls.js';

// Ids and checkpoints are whatever the application wrote: here an 8-bit CSI (U+009B, ESC [ in one byte, which a
// VT220-style terminal reads as the start of a control sequence: "\u009b2J" clears the screen) and a right-to-left
// override (U+202E, which shows the rest of the line reversed). No command may print either raw, on stdout or stderr.

const shared = useSharedRedis();
const actedOn = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const ids = ['csi\u009b2J', 'rlo\u202etxt.exe'] as const;
const checkpoints = ['cp\u009b31m', '\u2066cp\u202e'] as const;
let store: string[];

/** Asserts that `run` printed no character a terminal acts on, and returns everything it printed. */
function printed(run: PrintedOutput): string {
  expect(run.out + run.err).not.toMatch(actedOn);
  return run.out + run.err;
}

beforeAll(async () => {
  builtBin();
  store = ['--redis', `redis://${shared.host}:${shared.port}/${shared.database}`];
  const storage = RedisCheckpointStorage.forStandalone(shared.connect());
  // Written with version 5 and no token minted since: both stuck, so that repair and reset have work to describe.
  for (const [index, id] of ids.entries()) {
    await storage.save(id, checkpoints[index] ?? '', CheckpointWriteCondition.notOlderThan(5n));
  }
}, 180_000);

describe('the operator commands print ids and checkpoints with C1 controls and bidi characters escaped', () => {
  it('inspect, in the table (quoted), in JSON (parsed back to the raw ids) and from the bin', async () => {
    const table = printed(await runInProcess('inspect', store));
    expect(table).toMatch(/^"csi\\u009b2J" +"cp\\u009b31m" +5 /mu);
    expect(table).toMatch(/^"rlo\\u202etxt\.exe" +"\\u2066cp\\u202e" +5 /mu);
    const json = await runInProcess('inspect', [...store, '--json']);
    printed(json);
    const rows = JSON.parse(json.out) as { id: string; checkpoint: string }[];
    expect(rows.map(({ id, checkpoint }) => [id, checkpoint]).sort()).toEqual([
      [ids[0], checkpoints[0]],
      [ids[1], checkpoints[1]],
    ]);
    const bin = await runCli(['inspect', ...store]);
    expect(bin.stdout + bin.stderr).not.toMatch(actedOn);
    expect(bin.stdout).toContain('"rlo\\u202etxt.exe"');
  });

  it('repair, what it would do and what it did', async () => {
    const plan = printed(await runInProcess('repair', [...ids, '--raise-token', ...store]));
    expect(plan).toContain('would raise the token counter of "csi\\u009b2J" to its stored version 5');
    expect(plan).toContain('resume from checkpoint "\\u2066cp\\u202e"');
    const done = printed(await runInProcess('repair', [ids[1], '--raise-token', '--yes', ...store]));
    expect(done).toContain('raised the token counter of "rlo\\u202etxt.exe" to 5');
  });

  it('reset, its warning on stderr and what it would do on stdout', async () => {
    const run = await runInProcess('reset', [...ids, ...store]);
    printed(run);
    expect(run.err).toContain('warning: resetting "csi\\u009b2J" deletes its checkpoint "cp\\u009b31m"');
    expect(run.out).toContain('would raise the token counter and the stored version of "rlo\\u202etxt.exe" to 6');
  });
});
