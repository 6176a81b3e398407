import { describe, expect, it } from 'vitest';
import type { PostgresQueryResult } from '../../../runtime/postgres/postgres-client.js';
import {
  parseLsn,
  StandbyConfirmations,
  synchronousStandbysRequired,
} from '../../../runtime/postgres/standby-confirmations.js';
import { trippedGuard } from '../../../runtime/postgres/standby-statement-forms.js';
import { resolveWaitForStandbys } from '../../../runtime/postgres/wait-for-standbys.js';

/** A poll's answer: the target it read and where each standby had written, as `pg_lsn` text. */
interface Answer {
  readonly lsn: string;
  readonly written?: readonly string[];
  readonly synchronous?: readonly string[];
  readonly names?: string;
  readonly hidden?: boolean;
  readonly trips?: boolean;
}

/** A client whose polls answer from `answers` in turn (the last one again once they run out), each when released. */
function scriptedPolls(answers: readonly Answer[]): {
  send: (text: string, values: readonly unknown[]) => Promise<PostgresQueryResult>;
  sent: (readonly unknown[])[];
  answerNext: () => void;
} {
  const sent: (readonly unknown[])[] = [];
  const pending: (() => void)[] = [];
  let index = 0;
  return {
    sent,
    send: (_text, values) => {
      sent.push(values);
      const answer = answers[Math.min(index, answers.length - 1)] as Answer;
      index += 1;
      return new Promise((resolve) => {
        pending.push(() => {
          resolve({
            rowCount: 1,
            rows: [
              {
                lsn: answer.lsn,
                waited: 1,
                names: answer.names ?? '',
                trips: answer.trips ?? (answer.written ?? []).length > 0,
                hidden: answer.hidden ?? null,
                role: 'app',
                written: answer.written ?? null,
                synchronous: answer.synchronous ?? null,
              },
            ],
          });
        });
      });
    },
    answerNext: () => {
      pending.shift()?.();
    },
  };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('StandbyConfirmations', () => {
  it('one poll answers for every write waiting when it was sent; a write that commits meanwhile takes the next poll’s target', async () => {
    const polls = scriptedPolls([
      { lsn: '0/100', written: ['0/100'] },
      { lsn: '0/200', written: ['0/1FF'] },
      { lsn: '0/200', written: ['0/200'] },
    ]);
    const confirmations = StandbyConfirmations.of({}, polls.send);
    const wait = { standbys: 'auto' as const, timeoutMs: 10_000 };
    const first = confirmations.confirm(wait);
    const second = confirmations.confirm(wait);
    await flush();
    expect(polls.sent).toHaveLength(1);
    const late = confirmations.confirm(wait);
    polls.answerNext();
    expect(await first).toBeUndefined();
    expect(await second).toBeUndefined();
    await flush();
    // The late write's target is 0/200, read by the second poll: 0/1FF is short of it.
    polls.answerNext();
    await flush();
    polls.answerNext();
    expect(await late).toBeUndefined();
    expect(polls.sent).toHaveLength(3);
    expect(polls.sent[0]).toEqual([20, 1, true, 0]);
  });

  it("'auto' confirms at once where no standby streams, and a number waits for that many, short after its timeout", async () => {
    const none = scriptedPolls([{ lsn: '0/100' }]);
    const auto = StandbyConfirmations.of({}, none.send).confirm({ standbys: 'auto', timeoutMs: 10_000 });
    await flush();
    none.answerNext();
    expect(await auto).toBeUndefined();

    const one = scriptedPolls([{ lsn: '0/100', written: ['0/100'] }]);
    const confirmations = StandbyConfirmations.of({}, one.send);
    const two = confirmations.confirm({ standbys: 2, timeoutMs: 50 });
    await flush();
    one.answerNext();
    await flush();
    expect(one.sent[1]).toEqual([20, 2, false, 0]);
    expect(await two).toEqual({ acknowledged: 1, required: 2 });
  });

  it('waits for the synchronous standbys synchronous_standby_names asks for, counting them from the next poll on', async () => {
    const polls = scriptedPolls([
      { lsn: '0/100', written: ['0/100', '0/50'], synchronous: ['0/50'], names: 'ANY 1 (a, b)' },
      { lsn: '0/100', written: ['0/100', '0/100'], synchronous: ['0/100'], names: 'ANY 1 (a, b)' },
    ]);
    const confirmed = StandbyConfirmations.of({}, polls.send).confirm({ standbys: 'auto', timeoutMs: 10_000 });
    await flush();
    polls.answerNext();
    await flush();
    expect(polls.sent[1]).toEqual([20, 1, true, 1]);
    polls.answerNext();
    expect(await confirmed).toBeUndefined();
  });

  it('a poll that fails, or finds the walsenders hidden from the role, settles every write waiting with it as the cause', async () => {
    const polls = scriptedPolls([{ lsn: '0/100', written: [], hidden: true, trips: true }]);
    const confirmations = StandbyConfirmations.of({}, polls.send);
    const shortfall = confirmations.confirm({ standbys: 'auto', timeoutMs: 10_000 });
    await flush();
    polls.answerNext();
    const { cause } = (await shortfall) ?? {};
    expect(String(cause)).toMatch(
      /^Error: The primary streams WAL to walsenders whose positions role "app" cannot see: .* \(GRANT pg_monitor TO app; /u,
    );
    // The walsenders trip the guard, so statements go out to be waited for, and each wait reports the privilege.
    expect(confirmations.expectsStandbys).toBe(true);

    const failing = StandbyConfirmations.of({}, () => Promise.reject(new Error('Connection terminated')));
    expect(await failing.confirm({ standbys: 'auto', timeoutMs: 10_000 })).toMatchObject({
      acknowledged: undefined,
      required: 1,
      cause: new Error('Connection terminated'),
    });
  });

  it('a poll that never answers holds no write past its timeout', async () => {
    const confirmations = StandbyConfirmations.of({}, () => new Promise(() => undefined));
    const started = performance.now();
    expect(await confirmations.confirm({ standbys: 'auto', timeoutMs: 30 })).toEqual({
      acknowledged: undefined,
      required: 1,
    });
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('standby helpers', () => {
  it('reads pg_lsn text exactly, and refuses anything else', () => {
    expect(parseLsn('16/B374D848')).toBe(0x16b374d848n);
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('FFFFFFFF/FFFFFFFF')).toBe(2n ** 64n - 1n);
    expect(() => parseLsn('16B374D848')).toThrow(/Not a WAL position/u);
  });

  it.each([
    ['', 0],
    ['  ', 0],
    ['s1', 1],
    ['s1, s2', 1],
    ['*', 1],
    ['FIRST 2 (s1, s2, s3)', 2],
    ['first 2(s1,s2)', 2],
    ['ANY 3 (s1, s2, s3)', 3],
    ['2 (s1, s2)', 2],
    ['"first" (s1)', 1],
  ])('synchronous_standby_names %j asks for %i synchronous standbys', (names, count) => {
    expect(synchronousStandbysRequired(names)).toBe(count);
  });

  it('tells the guard’s refusal from every other failure', () => {
    const tripped = Object.assign(
      new Error('invalid value for parameter "synchronous_commit": "checkpoint-fencing: standbys stream"'),
      { code: '22023' },
    );
    expect(trippedGuard(tripped)).toBe(true);
    expect(trippedGuard(Object.assign(new Error('invalid value for parameter "x": "y"'), { code: '22023' }))).toBe(
      false,
    );
    expect(trippedGuard(new Error('checkpoint-fencing: standbys stream'))).toBe(false);
    expect(trippedGuard(undefined)).toBe(false);
  });

  it("resolves waitForStandbys: 'auto' by default, false to nothing, a number as a count; refuses the rest", () => {
    expect(resolveWaitForStandbys(undefined, undefined, 500, 'X')).toEqual({ standbys: 'auto', timeoutMs: 500 });
    expect(resolveWaitForStandbys(2, 80, 500, 'X')).toEqual({ standbys: 2, timeoutMs: 80 });
    expect(resolveWaitForStandbys(false, undefined, 500, 'X')).toBeUndefined();
    for (const bad of [0, 1.5, -1, true, '1', 'all']) {
      expect(() => resolveWaitForStandbys(bad as never, undefined, 500, 'X')).toThrow(
        /^X: waitForStandbys must be 'auto', false or a whole number of standbys ≥ 1; got /u,
      );
    }
    expect(() => resolveWaitForStandbys('auto', 0, 500, 'X')).toThrow(
      /^X: waitForStandbysTimeoutMs must be a whole number of milliseconds ≥ 1; got 0\.$/u,
    );
  });
});
