import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { upgrade, type UpgradeReport } from '../../recipes/index.js';
import { builtPackage } from '../support/built-package.js';
import { temporaryProject } from '../support/temporary-directory.js';
import { REPO } from './support/fixture-project.js';

const run = promisify(execFile);

/** A storage that Biome would format: its field's spaces and array. */
const UNFORMATTED = `import type { CheckpointStorage } from "checkpoint-fencing";

export class UnformattedCheckpointStorage implements CheckpointStorage {
  private readonly rows = new Map<string, string>();
  readonly  spaced = [1,2];

  async read(subscriptionId: string): Promise<string | undefined> {
    return this.rows.get(subscriptionId);
  }

  async save(subscriptionId: string, checkpoint: string): Promise<string> {
    this.rows.set(subscriptionId, checkpoint);
    return checkpoint;
  }

  async delete(subscriptionId: string): Promise<void> {
    this.rows.delete(subscriptionId);
  }
}
`;

/** A storage as Biome formats it at 60 columns. */
const NARROW = `import type { CheckpointStorage } from "checkpoint-fencing";

export class LedgerCheckpointStorage
  implements CheckpointStorage
{
  private readonly rows = new Map<string, string>();

  async read(
    subscriptionId: string,
  ): Promise<string | undefined> {
    return this.rows.get(subscriptionId);
  }

  async save(
    subscriptionId: string,
    checkpoint: string,
  ): Promise<string> {
    this.rows.set(subscriptionId, checkpoint);
    return checkpoint;
  }

  async delete(subscriptionId: string): Promise<void> {
    this.rows.delete(subscriptionId);
  }
}
`;

// What the upgrade reads of biome.json (formatter, javascript.formatter, extends) the fixture case pnpm-turborepo-biome
// covers with Biome installed and without. Here, a setting it does not read, and a file Biome would reformat.
describe("the project's Biome formats the lines the upgrade wrote, and no other", { timeout: 120_000 }, () => {
  let root: string;
  let first: UpgradeReport;
  let second: UpgradeReport;

  beforeAll(async () => {
    root = temporaryProject('biome', {
      'package.json': JSON.stringify({ name: 'biome-project', private: true, type: 'module' }),
      'tsconfig.json': JSON.stringify({
        compilerOptions: { module: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, types: [] },
        include: ['src'],
      }),
      'biome.json': JSON.stringify({
        formatter: { indentStyle: 'space' },
        overrides: [{ includes: ['src/narrow/**'], formatter: { lineWidth: 60 } }],
      }),
      'src/narrow/ledger-checkpoint-storage.ts': NARROW,
      'src/unformatted-checkpoint-storage.ts': UNFORMATTED,
    });
    mkdirSync(join(root, 'node_modules/@biomejs'), { recursive: true });
    symlinkSync(builtPackage('runtime'), join(root, 'node_modules/checkpoint-fencing'), 'dir');
    symlinkSync(join(REPO, 'node_modules/@biomejs/biome'), join(root, 'node_modules/@biomejs/biome'), 'dir');
    first = await upgrade({ cwd: root });
    second = await upgrade({ cwd: root });
  }, 120_000);

  it('formats a file Biome had formatted with all its settings, overrides included', async () => {
    const narrow = join(root, 'src/narrow/ledger-checkpoint-storage.ts');
    expect(first.changes.map((change) => change.file)).toContain(narrow);
    // Biome's layout at 60 columns: the recipe itself never breaks a condition.
    expect(readFileSync(narrow, 'utf8')).toContain(
      '    if (\n      condition !== undefined &&\n      condition.kind !== "any"\n    ) {\n',
    );
    const biome = join(root, 'node_modules/@biomejs/biome/bin/biome');
    await expect(run(process.execPath, [biome, 'ci', '--colors=off', narrow], { cwd: root })).resolves.toBeDefined();
  });

  it("leaves the rest of a file Biome had not formatted as it was, writing in the configuration's style", () => {
    const text = readFileSync(join(root, 'src/unformatted-checkpoint-storage.ts'), 'utf8');
    expect(text).toContain('  readonly  spaced = [1,2];\n');
    expect(text).toContain('condition?: CheckpointWriteCondition,\n  ): Promise<string> {');
    expect(text).toContain('throw new UnsupportedWriteConditionError(condition);');
  });

  it('changes nothing on a second run, with nothing to say', () => {
    expect(first.notices).toEqual([]);
    expect(second.changes).toEqual([]);
  });
});
