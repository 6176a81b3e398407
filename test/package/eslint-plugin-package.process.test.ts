import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { packedTarball } from '../support/packed-tarball.js';
import { installConsumer, type ConsumerProject } from './consumer-project.js';

const run = promisify(execFile);

/** The wrong example of doc/rules/no-unfenced-write.md, as JavaScript: a save with `any()` while a token is at hand. */
const unfencedWrite = `import { CheckpointWriteCondition } from 'checkpoint-fencing';

export async function commit(storage, lease, position) {
  const token = lease.fencingToken('orders');
  await storage.save('orders', position, CheckpointWriteCondition.any());
  return token;
}
`;

/** What ESLint's JSON formatter prints, as far as the tests read it. */
type LintResults = { messages: { ruleId: string | null; line: number }[] }[];

/**
 * The plugin package on its own: installed from its tarball with ESLint 10 into a project that never installed the
 * runtime, used from a flat config and from the command line's `--plugin checkpoint-fencing`.
 */
describe('eslint-plugin-checkpoint-fencing, installed alone', { timeout: 600_000 }, () => {
  let project: ConsumerProject;

  beforeAll(async () => {
    project = await installConsumer('eslint-plugin-alone', {
      type: 'module',
      packages: ['eslint-plugin-checkpoint-fencing'],
      devDependencies: { eslint: '10.15.0' },
    });
    await mkdir(join(project.directory, 'src'));
    await writeFile(join(project.directory, 'src/commit.js'), unfencedWrite);
    await writeFile(
      join(project.directory, 'eslint.config.js'),
      "import checkpointFencing from 'eslint-plugin-checkpoint-fencing';\n\nexport default [checkpointFencing.configs.recommended];\n",
    );
  }, 600_000);

  /** Runs the project's ESLint with `args` and returns what it reported for each file. */
  async function lint(args: readonly string[]): Promise<{ ruleId: string | null; line: number }[]> {
    const eslint = join(project.directory, 'node_modules/eslint/bin/eslint.js');
    const result = await run(process.execPath, [eslint, '--format', 'json', ...args], {
      cwd: project.directory,
    }).catch((error: unknown) => error as { stdout: string; stderr: string });
    return (JSON.parse(result.stdout) as LintResults).flatMap((file) =>
      file.messages.map(({ ruleId, line }) => ({ ruleId, line })),
    );
  }

  it('declares ESLint as a peer, TypeScript and the parser as optional ones, what it imports at run time as dependencies, and installs no runtime', async () => {
    const { manifest } = packedTarball('eslint-plugin-checkpoint-fencing');
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).toEqual([
      '@typescript-eslint/parser',
      'eslint',
      'typescript',
    ]);
    expect(manifest.peerDependenciesMeta).toEqual({
      '@typescript-eslint/parser': { optional: true },
      typescript: { optional: true },
    });
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(['@typescript-eslint/types']);
    expect(await readdir(join(project.directory, 'node_modules'))).not.toContain('checkpoint-fencing');
  });

  it('imports at run time only its dependency and Node: neither ts-morph nor the codemod, whose templates it compiles in', async () => {
    const dist = join(project.directory, 'node_modules/eslint-plugin-checkpoint-fencing/dist');
    const files = await readdir(dist, { recursive: true });
    const importsOf = async (extension: string) => {
      const specifiers = new Set<string>();
      for (const file of files.filter((name) => name.endsWith(extension))) {
        const text = await readFile(join(dist, file), 'utf8');
        for (const [, specifier = ''] of text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*'([^'.][^']*)'/gmu)) {
          specifiers.add(specifier);
        }
      }
      return [...specifiers].filter((specifier) => !specifier.startsWith('node:')).sort();
    };
    expect(files).toContain('vocabulary/member-templates.js');
    expect(files.filter((file) => file.startsWith('recipes'))).toEqual([]);
    expect(await importsOf('.js')).toEqual(['@typescript-eslint/types']);
    // Declarations name typescript-eslint's and TypeScript's types, which a typed config has installed.
    expect(await importsOf('.d.ts')).toEqual(['@typescript-eslint/utils', 'typescript']);
  });

  it('reports an unfenced write from a flat config using configs.recommended', async () => {
    expect(await lint(['src'])).toEqual([{ ruleId: 'checkpoint-fencing/no-unfenced-write', line: 5 }]);
  });

  it('reports it from the command line with --plugin checkpoint-fencing and no config', async () => {
    expect(
      await lint([
        '--no-config-lookup',
        '--plugin',
        'checkpoint-fencing',
        '--rule',
        'checkpoint-fencing/no-unfenced-write: error',
        'src/commit.js',
      ]),
    ).toEqual([{ ruleId: 'checkpoint-fencing/no-unfenced-write', line: 5 }]);
  });
});
