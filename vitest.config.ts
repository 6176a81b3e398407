import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Redis servers and Clusters are started per suite; two cores cannot run many at once.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 120_000,
  },
});
