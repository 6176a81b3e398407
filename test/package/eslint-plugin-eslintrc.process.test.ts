import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { legacyAppFindings } from '../eslint-plugin/shared-fixtures.js';
import { installConsumer, type ConsumerProject } from './consumer-project.js';

const run = promisify(execFile);
const REPO = resolve(import.meta.dirname, '../..');

/** A script no tsconfig covers, with the legacy app's mistake: an unconditional write beside a fencing token. */
const script = `export async function replay(storage, subscriptionId, fencingToken) {
  await storage.save(subscriptionId, 'position-7');
  console.log(fencingToken);
}
`;

/** An `.eslintrc.json` as typescript-eslint 5 documents one, extending one of the plugin's eslintrc configs. */
function eslintrc(config: string): string {
  return JSON.stringify(
    {
      root: true,
      parser: '@typescript-eslint/parser',
      parserOptions: { project: './tsconfig.json' },
      extends: [`plugin:checkpoint-fencing/${config}`],
      overrides: [{ files: ['*.js'], extends: ['plugin:checkpoint-fencing/legacy-disable-type-checked'] }],
    },
    null,
    2,
  );
}

/** The legacy app's findings in each mode, and the script's, which no tsconfig covers. */
const scriptFinding = 'scripts/replay.js:2 checkpoint-fencing/no-unfenced-write';
const syntacticFindings = [...legacyAppFindings.recommended, scriptFinding].sort();
const typeAwareFindings = [...legacyAppFindings['recommended-type-checked'], scriptFinding].sort();

/**
 * A project as domain-driven-hexagon has it: ESLint 8 with an `.eslintrc.json`, typescript-eslint 5's parser,
 * TypeScript 4.9, and the plugin and the runtime installed from their tarballs by a plain `npm install`, which checks
 * the peer ranges.
 */
describe('eslint-plugin-checkpoint-fencing from an .eslintrc.json on ESLint 8.57', { timeout: 600_000 }, () => {
  let project: ConsumerProject;

  beforeAll(async () => {
    project = await installConsumer('eslint-plugin-eslintrc', {
      type: 'module',
      packages: ['eslint-plugin-checkpoint-fencing', 'checkpoint-fencing'],
      devDependencies: { eslint: '8.57.0', '@typescript-eslint/parser': '5.62.0', typescript: '4.9.5' },
    });
    cpSync(join(REPO, 'fixtures/legacy-app/src'), join(project.directory, 'src'), { recursive: true });
    mkdirSync(join(project.directory, 'scripts'));
    writeFileSync(join(project.directory, 'scripts/replay.js'), script);
    writeFileSync(
      join(project.directory, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'es2020', module: 'nodenext', strict: true, skipLibCheck: true, noEmit: true },
        include: ['src'],
      }),
    );
  }, 600_000);

  /** Runs the project's ESLint on its sources under `config`: `file:line rule` of each message, and its stderr. */
  async function lint(config: string): Promise<{ findings: string[]; stderr: string }> {
    writeFileSync(join(project.directory, '.eslintrc.json'), eslintrc(config));
    const eslint = join(project.directory, 'node_modules/eslint/bin/eslint.js');
    const result = await run(process.execPath, [eslint, '--ext', '.ts,.js', '--format', 'json', 'src', 'scripts'], {
      cwd: project.directory,
      env: { ...process.env, ESLINT_USE_FLAT_CONFIG: undefined },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: unknown) => error as { stdout: string; stderr: string });
    const files = JSON.parse(result.stdout) as {
      filePath: string;
      messages: { ruleId: string | null; line: number; message: string }[];
    }[];
    const findings = files.flatMap((file) =>
      file.messages.map(
        (message) =>
          `${relative(project.directory, file.filePath)}:${message.line} ${message.ruleId ?? message.message}`,
      ),
    );
    return { findings: findings.sort(), stderr: result.stderr };
  }

  it('installs beside ESLint 8.57.0, @typescript-eslint/parser 5.62.0 and TypeScript 4.9.5 without a peer conflict', () => {
    expect(project.installOutput).not.toMatch(/ERESOLVE|peer/iu);
  });

  it('plugin:checkpoint-fencing/legacy-recommended reports the unfenced writes and every storage that drops the condition', async () => {
    expect(await lint('legacy-recommended')).toEqual({ findings: syntacticFindings, stderr: '' });
  });

  it('plugin:checkpoint-fencing/legacy-recommended-type-checked adds the subclass only types find; the script, untyped, is linted syntactically', async () => {
    expect(await lint('legacy-recommended-type-checked')).toEqual({ findings: typeAwareFindings, stderr: '' });
  });
});
