import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { LongestFirstSequencer } from '../support/projects/longest-first-sequencer.js';

const root = '/repo';
const last: Record<string, { duration: number; failed: boolean }> = {
  'unit:test/a.test.ts': { duration: 900, failed: false },
  'redis:test/lease.redis.test.ts': { duration: 24_000, failed: false },
  'cluster:test/storage.cluster.test.ts': { duration: 11_000, failed: false },
  'unit:test/broken.test.ts': { duration: 10, failed: true },
};
const sizes: Record<string, number> = {
  'process:test/new-small.process.test.ts': 100,
  'unit:test/new-big.test.ts': 9_000,
};

// Only what the sequencer reads: the root and vitest's cache of last run's results and file sizes.
const ctx = {
  config: { root },
  cache: {
    getFileTestResults: (key: string) => last[key],
    getFileStats: (key: string) => (key in sizes ? { size: sizes[key] } : undefined),
  },
} as unknown as Vitest;

function spec(project: string, file: string): TestSpecification {
  return { project: { name: project }, moduleId: `${root}/${file}` } as unknown as TestSpecification;
}

describe('LongestFirstSequencer', () => {
  it('runs last failures first, then new files largest first, then the rest longest first, across projects', async () => {
    const files = [
      spec('unit', 'test/a.test.ts'),
      spec('cluster', 'test/storage.cluster.test.ts'),
      spec('process', 'test/new-small.process.test.ts'),
      spec('redis', 'test/lease.redis.test.ts'),
      spec('unit', 'test/broken.test.ts'),
      spec('unit', 'test/new-big.test.ts'),
    ];
    const sorted = await new LongestFirstSequencer(ctx).sort(files);
    expect(sorted.map((file) => file.moduleId.slice(root.length + 1))).toEqual([
      'test/broken.test.ts',
      'test/new-big.test.ts',
      'test/new-small.process.test.ts',
      'test/lease.redis.test.ts',
      'test/storage.cluster.test.ts',
      'test/a.test.ts',
    ]);
  });
});
