import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { installConsumer, type ConsumerProject } from './consumer-project.js';

const run = promisify(execFile);

/** ts-jest's preset and nothing else: no transform, no transformIgnorePatterns, no moduleNameMapper. */
const jestConfig = "module.exports = { preset: 'ts-jest' };\n";

/**
 * A NestJS-style spec: CommonJS TypeScript importing the runtime and its dual-anchor subpath, a refusal told by
 * `instanceof`.
 */
const spec = `import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  InMemoryCheckpointStorage,
} from 'checkpoint-fencing';
import { InMemoryDualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';

describe('a storage from checkpoint-fencing under Jest', () => {
  it('saves, and refuses an older token', async () => {
    const storage = new InMemoryCheckpointStorage();
    await storage.save('orders', '7', CheckpointWriteCondition.notOlderThan(3n));
    const refusal = await storage
      .save('orders', '6', CheckpointWriteCondition.notOlderThan(2n))
      .catch((error: unknown) => error);
    expect(refusal instanceof CheckpointWriteConditionNotFulfilledError).toBe(true);
    expect(await storage.read('orders')).toBe('7');
  });

  it('saves a dual-anchor checkpoint through checkpoint-fencing/dual-anchor', async () => {
    const store = new InMemoryDualAnchorCheckpointStore();
    await store.saveHeartbeat('orders', new Date(1_700_000_000_000));
    expect((await store.findByStreamName('orders'))?.lastHeartbeatTimestamp?.getTime()).toBe(1_700_000_000_000);
  });
});
`;

interface JestJsonReport {
  readonly success: boolean;
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly testResults: readonly { readonly message: string }[];
}

/**
 * Jest in CommonJS mode with ts-jest, the NestJS default, has its own module system and cannot load an ES module from
 * node_modules; the runtime's CommonJS build is what it loads. A project on `"moduleResolution": "node"`, installed
 * with a plain `npm install`, whose jest.config.js is ts-jest's preset alone.
 */
describe('the package under Jest 30 with ts-jest, CommonJS', { timeout: 600_000 }, () => {
  let project: ConsumerProject;

  beforeAll(async () => {
    project = await installConsumer('jest', {
      type: 'commonjs',
      devDependencies: { jest: '30.5.2', 'ts-jest': '29.4.15', '@types/jest': '30.0.0', typescript: '5.8.3' },
    });
    await writeFile(
      join(project.directory, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'commonjs',
          moduleResolution: 'node',
          target: 'es2021',
          strict: true,
          esModuleInterop: true,
          skipLibCheck: true,
        },
      }),
    );
    await writeFile(join(project.directory, 'jest.config.js'), jestConfig);
    await writeFile(join(project.directory, 'storage.spec.ts'), spec);
  }, 600_000);

  it("runs a spec importing the runtime and a subpath with ts-jest's preset alone, and tells the refusal by instanceof", async () => {
    const report = join(project.directory, 'report.json');
    await run(
      process.execPath,
      [join(project.directory, 'node_modules/jest/bin/jest.js'), '--json', `--outputFile=${report}`],
      { cwd: project.directory, maxBuffer: 64 * 1024 * 1024 },
    ).catch(() => undefined);
    const result = JSON.parse(await readFile(report, 'utf8')) as JestJsonReport;
    expect({
      success: result.success,
      passed: result.numPassedTests,
      failed: result.numFailedTests,
      messages: result.testResults.map((file) => file.message),
    }).toEqual({ success: true, passed: 2, failed: 0, messages: [''] });
  });
});
