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

  it('imports at run time only its dependency and Node: neither ts-morph nor the codemod, whose templates it bundles', async () => {
    const dist = join(project.directory, 'node_modules/eslint-plugin-checkpoint-fencing/dist');
    const files = await readdir(dist, { recursive: true });
    /** The packages the files ending in `extension` import or require, Node's own left out. */
    const importsOf = async (extension: string) => {
      const specifiers = new Set<string>();
      for (const file of files.filter((name) => name.endsWith(extension))) {
        const text = await readFile(join(dist, file), 'utf8');
        const imports = text.matchAll(
          /^(?:import|export)\b[^;]*?\bfrom\s*'([^'.][^']*)'|\brequire\("([^".][^"]*)"\)/gmu,
        );
        for (const [, imported, required] of imports) {
          specifiers.add(imported ?? required ?? '');
        }
      }
      return [...specifiers].filter((specifier) => !specifier.startsWith('node:')).sort();
    };
    // One implementation, the CommonJS bundle, which the ES module entry imports (doc/adr/0316).
    expect(files.filter((file) => /\.c?js$/u.test(file)).sort()).toEqual([
      'eslint-plugin/index.cjs',
      'eslint-plugin/index.js',
    ]);
    const map = JSON.parse(await readFile(join(dist, 'eslint-plugin/index.cjs.map'), 'utf8')) as { sources: string[] };
    expect(map.sources).toContain('../../../vocabulary/member-templates.ts');
    expect(map.sources.filter((source) => source.includes('recipes/'))).toEqual([]);
    expect(await importsOf('.cjs')).toEqual(['@typescript-eslint/types']);
    expect(await importsOf('.js')).toEqual([]);
    // Declarations name typescript-eslint's and TypeScript's types, which a typed config has installed.
    expect(await importsOf('.d.ts')).toEqual(['@typescript-eslint/utils', 'typescript']);
    expect(await importsOf('.d.cts')).toEqual([]);
  });

  it('gives import and require one plugin object, so a flat config and an eslintrc, or two configs, share its rules', async () => {
    const script = `import { createRequire } from 'node:module';
import plugin, { configs, rules } from 'eslint-plugin-checkpoint-fencing';

const required = createRequire(import.meta.url)('eslint-plugin-checkpoint-fencing');
console.log(JSON.stringify({ same: required === plugin, rules: rules === plugin.rules, configs: configs === plugin.configs, legacy: Object.keys(required.configs).filter((name) => name.startsWith('legacy-')) }));
`;
    await writeFile(join(project.directory, 'both-ways.js'), script);
    const { stdout } = await run(process.execPath, ['both-ways.js'], { cwd: project.directory });
    expect(JSON.parse(stdout)).toEqual({
      same: true,
      rules: true,
      configs: true,
      legacy: ['legacy-recommended', 'legacy-recommended-type-checked', 'legacy-disable-type-checked'],
    });
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
