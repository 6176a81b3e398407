import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkoutVersion, yarn, yarnProject } from '../support/yarn.js';
import { ESLINT_ARGS, eslintFindings, typeAwareFindings, writeLegacyAppProject } from './legacy-app-eslintrc.js';

/**
 * ESLint 8's eslintrc loads a plugin with `require()`. Under Plug'n'Play only a CommonJS `require` goes through Yarn's
 * resolution: an ES module plugin failed there (Yarn 4.0's hook threw ERR_REQUIRE_ESM; on 4.18 Node's `require(esm)`
 * looked for its imports outside Yarn's zip archives). The plugin's `require` condition gives a CommonJS file
 * (doc/adr/0316).
 */
describe(
  "eslint-plugin-checkpoint-fencing from an .eslintrc.json in a Yarn 4 Plug'n'Play project",
  { timeout: 600_000 },
  () => {
    let root: string;

    beforeAll(async () => {
      // typescript-eslint 8's parser and the TypeScript this checkout pins, the newest the plugin's peer ranges name.
      root = await yarnProject('yarn-pnp-eslintrc', {
        packages: ['eslint-plugin-checkpoint-fencing'],
        devDependencies: {
          eslint: '8.57.1',
          '@typescript-eslint/parser': checkoutVersion('@typescript-eslint/parser'),
          typescript: checkoutVersion('typescript'),
        },
      });
      writeLegacyAppProject(root, 'legacy-recommended-type-checked');
    }, 600_000);

    it('plugin:checkpoint-fencing/legacy-recommended-type-checked reports the unfenced writes and the storages that drop the condition', async () => {
      expect(existsSync(join(root, '.pnp.cjs'))).toBe(true);
      expect(existsSync(join(root, 'node_modules'))).toBe(false);
      // ESLint exits 1 when it reports a problem; its JSON is on stdout either way.
      const output = await yarn(root, 'eslint', ...ESLINT_ARGS).then(
        (stdout) => ({ stdout, stderr: '' }),
        (error: unknown) => error as { stdout: string; stderr: string },
      );
      expect(eslintFindings(root, output)).toEqual({ findings: typeAwareFindings, stderr: '' });
    });
  },
);
