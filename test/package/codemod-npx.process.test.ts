import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packedTarball } from '../support/packed-tarball.js';
import { temporaryDirectory } from '../support/temporary-directory.js';
import { copyLegacyApp } from '../recipes/support/fixture-project.js';

const run = promisify(execFile);

const SUMMARY =
  /^add-write-conditions: (\d+) files? scanned, (\d+) implementers? found \((\d+) skipped\), (\d+) files? changed, \d+\.\d\ds\.$/m;

/**
 * The codemod as its README runs it: `npx` fetches the package (here its tarball) into npx's own cache and runs its
 * bin in a project that never installed it.
 */
describe('checkpoint-fencing-codemod run with npx', { timeout: 600_000 }, () => {
  it('upgrades a project that never installed it', async () => {
    const root = temporaryDirectory('codemod-npx');
    copyLegacyApp(root);
    const tarball = packedTarball('checkpoint-fencing-codemod').file;
    const { stdout } = await run(
      'npx',
      [
        '--yes',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        `--package=${tarball}`,
        'checkpoint-fencing-codemod',
        'upgrade',
      ],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
    );
    expect(stdout).toContain(
      'upgraded MapCheckpointStorage (src/storages/map-checkpoint-storage.ts:7): delegating shape, adds save, writeVersion',
    );
    expect(SUMMARY.exec(stdout)?.slice(1, 5)).toEqual(['9', '4', '0', '4']);
    expect(existsSync(join(root, 'node_modules/checkpoint-fencing-codemod'))).toBe(false);
  });
});
