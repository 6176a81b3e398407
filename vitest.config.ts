import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/projects/longest-first-sequencer.js';
import { testProjects } from './test/support/projects/index.js';

const suffixed = testProjects.flatMap((project) => (project.suffix === undefined ? [] : [project.suffix]));

export default defineConfig({
  // The runtime entries the CLI imports by name, from their sources, as tsconfig.json's paths map them: one copy of
  // the runtime in a test process, and nothing to build first.
  resolve: {
    alias: [
      { find: /^checkpoint-fencing$/u, replacement: fileURLToPath(new URL('runtime/index.ts', import.meta.url)) },
      {
        find: /^checkpoint-fencing\/store-layout$/u,
        replacement: fileURLToPath(new URL('runtime/store-layout-entry.ts', import.meta.url)),
      },
    ],
  },
  test: {
    // Servers and child processes mostly wait; more files than cores keeps both cores busy (doc/testing.md#speed).
    maxWorkers: 3,
    testTimeout: 20_000,
    hookTimeout: 120_000,
    sequence: { sequencer: LongestFirstSequencer },
    // One project a file-name suffix (doc/testing.md), built from the table `npm test` provisions from.
    projects: testProjects.map((project) => ({
      extends: true,
      test: {
        name: project.name,
        // vitest runs project groups one after another, lowest first; the last group's files one at a time, so that
        // their replicas and Sentinels do not compete with each other for the two cores either (doc/testing.md).
        sequence: { groupOrder: project.runsAfterTheOthers === true ? 1 : 0 },
        ...(project.runsAfterTheOthers === true ? { maxWorkers: 1 } : {}),
        include: project.suffix === undefined ? ['test/**/*.test.ts'] : [`test/**/*.${project.suffix}.test.ts`],
        exclude: project.suffix === undefined ? [`test/**/*.{${suffixed.join(',')}}.test.ts`] : [],
        setupFiles: project.suffix === undefined ? ['test/support/projects/unit-isolation.ts'] : [],
        globalSetup: [
          ...(project.binaries.length > 0 ? ['test/support/projects/provision-global-setup.ts'] : []),
          ...(project.sharedServers.length > 0 ? ['test/support/projects/shared-servers-global-setup.ts'] : []),
        ],
      },
    })),
  },
});
