import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { installConsumer, type ConsumerProject } from './consumer-project.js';
import {
  ESLINT_ARGS,
  eslintFindings,
  syntacticFindings,
  typeAwareFindings,
  writeEslintrc,
  writeLegacyAppProject,
} from './legacy-app-eslintrc.js';

const run = promisify(execFile);

/**
 * A project as domain-driven-hexagon has it: ESLint 8 with an `.eslintrc.json`, typescript-eslint 5's parser,
 * TypeScript 4.9, and the plugin and the runtime installed from their tarballs by a plain `npm install`, which checks
 * the peer ranges. ESLint 8.56.0, the oldest the peer range admits: EventSourcing.NodeJS's samples pin it (issue 35).
 */
describe('eslint-plugin-checkpoint-fencing from an .eslintrc.json on ESLint 8.56', { timeout: 600_000 }, () => {
  let project: ConsumerProject;

  beforeAll(async () => {
    project = await installConsumer('eslint-plugin-eslintrc', {
      type: 'module',
      packages: ['eslint-plugin-checkpoint-fencing', 'checkpoint-fencing'],
      devDependencies: { eslint: '8.56.0', '@typescript-eslint/parser': '5.62.0', typescript: '4.9.5' },
    });
    writeLegacyAppProject(project.directory, 'legacy-recommended');
  }, 600_000);

  /** Runs the project's ESLint on its sources under `config`: `file:line rule` of each message, and its stderr. */
  async function lint(config: string): Promise<{ findings: string[]; stderr: string }> {
    writeEslintrc(project.directory, config);
    const eslint = join(project.directory, 'node_modules/eslint/bin/eslint.js');
    const result = await run(process.execPath, [eslint, ...ESLINT_ARGS], {
      cwd: project.directory,
      env: { ...process.env, ESLINT_USE_FLAT_CONFIG: undefined },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: unknown) => error as { stdout: string; stderr: string });
    return eslintFindings(project.directory, result);
  }

  it('installs beside ESLint 8.56.0, @typescript-eslint/parser 5.62.0 and TypeScript 4.9.5 without a peer conflict', () => {
    expect(project.installOutput).not.toMatch(/ERESOLVE|peer/iu);
  });

  it('plugin:checkpoint-fencing/legacy-recommended reports the unfenced writes and every storage that drops the condition', async () => {
    expect(await lint('legacy-recommended')).toEqual({ findings: syntacticFindings, stderr: '' });
  });

  it('plugin:checkpoint-fencing/legacy-recommended-type-checked adds the subclass only types find; the script, untyped, is linted syntactically', async () => {
    expect(await lint('legacy-recommended-type-checked')).toEqual({ findings: typeAwareFindings, stderr: '' });
  });
});
