import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { installConsumer, type ConsumerProject } from './consumer-project.js';
import { runProjectVitest } from './vitest-report.js';

/** Every conformance kit, run against the in-memory implementations, as a user's vitest file would. */
const kitsTest = `import { InMemoryCheckpointStorage, InMemoryLeaseStrategy, InMemoryLeaseTable } from 'checkpoint-fencing';
import { InMemoryDualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
import {
  describeCheckpointStorageConformance,
  describeCompetingConsumerStrategyConformance,
  describeDualAnchorCheckpointStoreConformance,
} from 'checkpoint-fencing/testing';

describeCheckpointStorageConformance('InMemoryCheckpointStorage', () => new InMemoryCheckpointStorage());
describeCompetingConsumerStrategyConformance('InMemoryLeaseStrategy', () => {
  const table = new InMemoryLeaseTable();
  return {
    leaseTimeMs: 500,
    node: () => new InMemoryLeaseStrategy({ table, leaseTimeMs: 500 }),
    deleteLease: async (subscriptionId) => {
      table.deleteLease(subscriptionId);
    },
  };
});
describeDualAnchorCheckpointStoreConformance('InMemoryDualAnchorCheckpointStore', () => new InMemoryDualAnchorCheckpointStore());
`;

/** Runs the kits with the project's own vitest and returns the full name of every case that passed. */
async function runKits(project: string): Promise<string[]> {
  await writeFile(join(project, 'kits.test.mjs'), kitsTest);
  const result = await runProjectVitest(project);
  expect({
    success: result.success,
    failedSuites: result.numFailedTestSuites,
    failed: result.numFailedTests,
    pending: result.numPendingTests,
  }).toEqual({ success: true, failedSuites: 0, failed: 0, pending: 0 });
  return result.testResults
    .flatMap((file) => file.assertionResults)
    .filter((test) => test.status === 'passed')
    .map((test) => test.fullName)
    .sort();
}

/**
 * The optional peers say which versions the package works with; npm refuses to install it into a project whose
 * version of a peer is outside the range, so a range must cover every version the package is tested on and no more.
 * Each project here is what a user has, installed with a plain `npm install`.
 */
describe('the peer ranges of the npm pack tarball', { timeout: 600_000 }, () => {
  /** The oldest vitest 3, next to Prettier 1: two peer conflicts the package once had, in one install. */
  let onVitest3: ConsumerProject;
  let onVitest4: ConsumerProject;

  // The oldest release of each major the range names; 4.0.0 itself cannot run any test next to today's vite
  // ("Unknown method: getBuiltins"), so 4.0's last patch stands for 4.0. The repository's own suite runs the kits on 4.1.
  beforeAll(async () => {
    [onVitest3, onVitest4] = await Promise.all([
      installConsumer('vitest-3.0.0', {
        type: 'module',
        devDependencies: { vitest: '3.0.0', prettier: '1.19.1' },
      }),
      installConsumer('vitest-4.0.18', {
        type: 'module',
        devDependencies: { vitest: '4.0.18' },
      }),
    ]);
  }, 600_000);

  it('installs into projects on vitest 3.0 and 4.0, whose vitest passes every case of the conformance kits', async () => {
    const passedOn3 = await runKits(onVitest3.directory);
    const passedOn4 = await runKits(onVitest4.directory);
    expect(passedOn3.length).toBeGreaterThan(60);
    expect(passedOn3).toEqual(passedOn4);
    for (const kit of ['CheckpointStorage', 'CompetingConsumerStrategy', 'DualAnchorCheckpointStore']) {
      expect(passedOn3.some((name) => name.includes(`${kit} conformance`))).toBe(true);
    }
  });

  it('installs into a project on Prettier 1 without a peer warning: the upgrade loads whichever Prettier the project has', () => {
    expect(onVitest3.installOutput).not.toMatch(/ERESOLVE|peer/i);
  });
});
