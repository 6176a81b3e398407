import { describe, expect, it } from 'vitest';
import { ScanProgress } from '../../operator/scan-progress.js';

function progressOn(isTTY: boolean): { progress: ScanProgress; written: string[]; advanceClock: (ms: number) => void } {
  let now = 0;
  const written: string[] = [];
  const progress = new ScanProgress({ write: (text) => written.push(text), isTTY }, 'inspect', () => now);
  return {
    progress,
    written,
    advanceClock: (ms) => {
      now += ms;
    },
  };
}

describe('ScanProgress', () => {
  it('stays silent up to 10,000 keys, and prints nothing at the end', () => {
    const { progress, written } = progressOn(false);
    for (let batch = 0; batch < 10; batch += 1) {
      progress.advance(1_000, 'keys scanned');
    }
    progress.finish('keys scanned');
    expect(written).toEqual([]);
  });

  it('past 10,000 keys prints a line, then at most one a second, then the total', () => {
    const { progress, written, advanceClock } = progressOn(false);
    progress.advance(10_000, 'keys scanned');
    progress.advance(1, 'keys scanned');
    progress.advance(5_000, 'keys scanned');
    advanceClock(999);
    progress.advance(1_000, 'keys scanned');
    advanceClock(1);
    progress.advance(1_000, 'keys scanned (master 2 of 3, 127.0.0.1:7001)');
    advanceClock(500);
    progress.finish('keys scanned');
    expect(written).toEqual([
      'inspect: 10,001 keys scanned…\n',
      'inspect: 17,001 keys scanned (master 2 of 3, 127.0.0.1:7001)…\n',
      'inspect: 17,001 keys scanned in 1.5 s\n',
    ]);
  });

  it('on a terminal, redraws one line and clears it at the end', () => {
    const { progress, written, advanceClock } = progressOn(true);
    progress.advance(20_000, 'keys scanned');
    advanceClock(1_000);
    progress.advance(20_000, 'keys scanned');
    progress.finish('keys scanned');
    expect(written).toEqual([
      '\r\x1b[Kinspect: 20,000 keys scanned…',
      '\r\x1b[Kinspect: 40,000 keys scanned…',
      '\r\x1b[K',
    ]);
  });

  it('on a terminal, clears its line for the report printed meanwhile and draws it again at the next advance', () => {
    const { progress, written } = progressOn(true);
    progress.interrupt();
    progress.advance(20_000, 'keys scanned');
    progress.interrupt();
    progress.interrupt();
    progress.advance(1_000, 'keys scanned');
    progress.interrupt();
    progress.finish('keys scanned');
    expect(written).toEqual([
      '\r\x1b[Kinspect: 20,000 keys scanned…',
      '\r\x1b[K',
      '\r\x1b[Kinspect: 21,000 keys scanned…',
      '\r\x1b[K',
    ]);
    const { progress: toLog, written: logged } = progressOn(false);
    toLog.advance(20_000, 'keys scanned');
    toLog.interrupt();
    expect(logged).toEqual(['inspect: 20,000 keys scanned…\n']);
  });
});
