import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { legacyAppFindings } from '../eslint-plugin/shared-fixtures.js';

const REPO = resolve(import.meta.dirname, '../..');

/** A script no tsconfig covers, with the legacy app's mistake: an unconditional write beside a fencing token. */
const script = `export async function replay(storage, subscriptionId, fencingToken) {
  await storage.save(subscriptionId, 'position-7');
  console.log(fencingToken);
}
`;

/** The legacy app's findings in each mode, and the script's, which no tsconfig covers. */
const scriptFinding = 'scripts/replay.js:2 checkpoint-fencing/no-unfenced-write';
export const syntacticFindings = [...legacyAppFindings.recommended, scriptFinding].sort();
export const typeAwareFindings = [...legacyAppFindings['recommended-type-checked'], scriptFinding].sort();

/** The arguments ESLint 8 is run with on the project: its sources and the script, as JSON. */
export const ESLINT_ARGS = ['--ext', '.ts,.js', '--format', 'json', 'src', 'scripts'] as const;

/**
 * Writes into `directory` fixtures/legacy-app's sources (unfenced writes beside fencing tokens, storages that drop the
 * condition), a script no tsconfig covers, a tsconfig.json for the sources, and an `.eslintrc.json` as typescript-eslint
 * 5 documents one, extending the plugin's eslintrc config `config` (and `legacy-disable-type-checked` for `*.js`).
 */
export function writeLegacyAppProject(directory: string, config: string): void {
  cpSync(join(REPO, 'fixtures/legacy-app/src'), join(directory, 'src'), { recursive: true });
  mkdirSync(join(directory, 'scripts'), { recursive: true });
  writeFileSync(join(directory, 'scripts/replay.js'), script);
  writeFileSync(
    join(directory, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'es2020', module: 'nodenext', strict: true, skipLibCheck: true, noEmit: true },
      include: ['src'],
    }),
  );
  writeEslintrc(directory, config);
}

/** Writes `directory`'s `.eslintrc.json`, extending `plugin:checkpoint-fencing/<config>`. */
export function writeEslintrc(directory: string, config: string): void {
  const eslintrc = {
    root: true,
    parser: '@typescript-eslint/parser',
    parserOptions: { project: './tsconfig.json' },
    extends: [`plugin:checkpoint-fencing/${config}`],
    overrides: [{ files: ['*.js'], extends: ['plugin:checkpoint-fencing/legacy-disable-type-checked'] }],
  };
  writeFileSync(join(directory, '.eslintrc.json'), JSON.stringify(eslintrc, null, 2));
}

/**
 * What ESLint printed with {@link ESLINT_ARGS} in `directory`: `file:line rule` of each message (the message where it
 * has no rule), sorted, and its stderr. ESLint that could not run at all prints no JSON: then its stderr says why.
 */
export function eslintFindings(
  directory: string,
  output: { stdout: string; stderr: string },
): {
  findings: string[];
  stderr: string;
} {
  if (!output.stdout.trimStart().startsWith('[')) {
    return { findings: [], stderr: output.stderr };
  }
  const files = JSON.parse(output.stdout) as {
    filePath: string;
    messages: { ruleId: string | null; line: number; message: string }[];
  }[];
  const findings = files.flatMap((file) =>
    file.messages.map(
      (message) => `${relative(directory, file.filePath)}:${message.line} ${message.ruleId ?? message.message}`,
    ),
  );
  return { findings: findings.sort(), stderr: output.stderr };
}
