import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { installConsumer, type ConsumerProject } from './consumer-project.js';

const run = promisify(execFile);

/** The Jest config doc/compatibility.md gives for CommonJS projects, as a user copies it. */
async function documentedJestConfig(): Promise<string> {
  const doc = await readFile(resolve(import.meta.dirname, '../../doc/compatibility.md'), 'utf8');
  const config = /```js\n(\/\/ jest\.config\.js\n[\s\S]*?)```/.exec(doc)?.[1];
  if (config === undefined) {
    throw new Error('doc/compatibility.md has no ```js block starting with // jest.config.js');
  }
  return config;
}

/** A NestJS-style spec: CommonJS TypeScript importing the runtime, a refusal included. */
const spec = `import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  InMemoryCheckpointStorage,
} from 'checkpoint-fencing';

describe('a storage from checkpoint-fencing under Jest', () => {
  it('saves, and refuses an older token', async () => {
    const storage = new InMemoryCheckpointStorage();
    await storage.save('orders', '7', CheckpointWriteCondition.notOlderThan(3n));
    await expect(
      storage.save('orders', '6', CheckpointWriteCondition.notOlderThan(2n)),
    ).rejects.toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(await storage.read('orders')).toBe('7');
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
 * Jest in CommonJS mode with ts-jest, the NestJS default, cannot load an ES module from node_modules on its own; the
 * config doc/compatibility.md gives makes it compile this package. A project on `"moduleResolution": "node"`,
 * installed with a plain `npm install`.
 */
describe('the package under Jest with ts-jest, CommonJS', { timeout: 600_000 }, () => {
  let project: ConsumerProject;

  beforeAll(async () => {
    project = await installConsumer('jest', {
      type: 'commonjs',
      devDependencies: { jest: '29.7.0', 'ts-jest': '29.4.15', '@types/jest': '29.5.14', typescript: '5.8.3' },
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
    await writeFile(join(project.directory, 'jest.config.js'), await documentedJestConfig());
    await writeFile(join(project.directory, 'storage.spec.ts'), spec);
  }, 600_000);

  it('runs a spec importing the runtime with the jest.config.js of doc/compatibility.md', async () => {
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
    }).toEqual({ success: true, passed: 1, failed: 0, messages: [''] });
  });
});
