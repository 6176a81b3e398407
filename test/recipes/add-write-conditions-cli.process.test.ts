import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { copyLegacyApp, RECIPE_FIXTURES, REPO, typeCheck } from './support/fixture-project.js';
import { commitAll, git } from './support/git-repo.js';
import { builtPackage } from '../support/built-package.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

/** The codemod's dist/, built from the current sources: the CLI is `<build>/recipes/cli.js`, as users run it. */
let build: string;

// The first test file to need this build makes it (two tsc passes): minutes on a loaded two-core machine.
beforeAll(() => {
  build = join(builtPackage('recipes'), 'dist');
}, 600_000);

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(cwd: string, ...args: string[]): Run {
  const result = spawnSync(process.execPath, [join(build, 'recipes/cli.js'), ...args], { cwd, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function legacyApp(options: { git?: boolean } = {}): string {
  const root = temporaryDirectory('legacy-app');
  copyLegacyApp(root);
  if (options.git === true) {
    commitAll(root);
  }
  return root;
}

function snapshot(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name !== '.git') {
        if (entry.isDirectory()) {
          walk(join(dir, entry.name));
        } else {
          files.set(join(dir, entry.name).slice(root.length + 1), readFileSync(join(dir, entry.name), 'utf8'));
        }
      }
    }
  };
  walk(root);
  return files;
}

const ESCAPE = String.fromCharCode(27);
const SUMMARY =
  /^add-write-conditions: (\d+) files? scanned, (\d+) implementers? found \((\d+) skipped\), (\d+) files? (?:changed|would change), \d+\.\d\ds\.$/m;

// Each case spawns the CLI one to three times; on a shared two-core machine one spawn can take several seconds.
describe('checkpoint-fencing-codemod upgrade (spawned CLI)', { timeout: 90_000 }, () => {
  it('upgrades the legacy app, says what it did, ends with a summary line, and type-checks afterwards', () => {
    const root = legacyApp();
    const run = cli(root, 'upgrade');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(
      'upgraded MapCheckpointStorage (src/storages/map-checkpoint-storage.ts:7): delegating shape, adds save, writeVersion',
    );
    expect(run.stdout).toContain(
      'upgraded PostgresCheckpointStorage (src/storages/postgres-checkpoint-storage.ts:5): follows-base shape, renames save to saveUnconditionally',
    );
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(SUMMARY);
    expect(SUMMARY.exec(run.stdout)?.slice(1, 5)).toEqual(['9', '4', '0', '4']);
    expect(typeCheck(root)).toBe('');

    const again = cli(root, 'upgrade');
    expect(again.status).toBe(0);
    expect(SUMMARY.exec(again.stdout)?.[4]).toBe('0');
  });

  it('--dry-run writes nothing and prints a patch that git apply accepts and that equals a real run', () => {
    const root = legacyApp({ git: true });
    const before = snapshot(root);
    const run = cli(root, 'upgrade', '--dry-run');
    expect(run.status).toBe(0);
    expect(snapshot(root)).toEqual(before);
    expect(run.stdout).toMatch(/^diff --git a\/src\/storages\//);
    expect(run.stderr).toMatch(SUMMARY);

    git(root, ['apply', '--check', '-'], run.stdout);
    git(root, ['apply', '-'], run.stdout);
    const written = legacyApp();
    expect(cli(written, 'upgrade').status).toBe(0);
    expect(snapshot(root)).toEqual(snapshot(written));
  });

  it('--dry-run from a folder inside a git repository: git apply accepts the patch there and at the root', () => {
    const root = temporaryDirectory('monorepo');
    const project = join(root, 'services/orders');
    mkdirSync(project, { recursive: true });
    copyLegacyApp(project);
    commitAll(root);
    const run = cli(project, 'upgrade', '--dry-run');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^diff --git a\/services\/orders\/src\/storages\//);
    const written = legacyApp();
    expect(cli(written, 'upgrade').status).toBe(0);

    for (const applyFrom of [project, root]) {
      git(applyFrom, ['apply', '--check', '-'], run.stdout);
      git(applyFrom, ['apply', '-'], run.stdout);
      // Applied from the folder, a path git took to be outside it would be skipped silently; every file changed.
      expect(snapshot(project), `applied from ${applyFrom}`).toEqual(snapshot(written));
      git(root, ['checkout', '--', '.']);
    }
  });

  it('--version prints the version of the package it runs from (review 21)', () => {
    const run = cli(temporaryDirectory('version'), '--version');
    expect(run.stdout).toBe(
      `${(JSON.parse(readFileSync(join(build, '../package.json'), 'utf8')) as { version: string }).version}\n`,
    );
    expect(run.status).toBe(0);
  });

  it('--check exits 1 when an implementer is skipped, even with nothing else to change (review 9b)', () => {
    const root = temporaryDirectory('check-skipped');
    copyLegacyApp(root);
    writeFileSync(
      join(root, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', types: [] }, include: ['src/overloaded-storage.ts'] }),
    );
    writeFileSync(
      join(root, 'src/overloaded-storage.ts'),
      [
        "import type { CheckpointStorage } from 'checkpoint-fencing';",
        'export class OverloadedStorage implements CheckpointStorage {',
        '  read(id: string): Promise<string | undefined> {',
        '    return Promise.resolve(id);',
        '  }',
        '  save(id: string, checkpoint: string): Promise<string>;',
        '  save(id: string, checkpoint: number): Promise<string>;',
        '  save(id: string, checkpoint: string | number): Promise<string> {',
        '    return Promise.resolve(String(checkpoint));',
        '  }',
        '  delete(): Promise<void> {',
        '    return Promise.resolve();',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const run = cli(root, 'upgrade', '--check');
    expect(run.stderr).toMatch(
      /^skipped OverloadedStorage \(src\/overloaded-storage\.ts:2\): its save has overload signatures/m,
    );
    expect(SUMMARY.exec(run.stdout)?.slice(1, 5)).toEqual(['1', '1', '1', '0']);
    expect(run.status).toBe(1);
  });

  it('upgrades a project whose own resolution cannot see the package, saying so in one line', () => {
    const root = legacyApp();
    writeFileSync(
      join(root, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'commonjs', moduleResolution: 'node', types: [] },
        include: ['src'],
      }),
    );
    const run = cli(root, 'upgrade', '--check');
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^note: 'checkpoint-fencing' is not installed for the project of .*tsconfig\.json; read its declarations from .*index\.d\.ts instead: install it \(npm install checkpoint-fencing\) before compiling the upgraded code\.\n$/,
    );
    expect(SUMMARY.exec(run.stdout)?.slice(1, 5)).toEqual(['9', '4', '0', '4']);
  });

  it('--dry-run patches apply byte for byte to CRLF, BOM and no-final-newline files', () => {
    const root = temporaryDirectory('crlf');
    for (const name of ['tabs-crlf-bom-double-quotes', 'untouched-crlf-bom-no-final-newline', 'delegating-method']) {
      cpSync(join(RECIPE_FIXTURES, name, 'input.ts'), join(root, `${name}.ts`));
    }
    writeFileSync(
      join(root, 'tsconfig.json'),
      readFileSync(join(REPO, 'fixtures/legacy-app/tsconfig.json'), 'utf8')
        .replace('"include": ["src"]', '"include": ["*.ts"]')
        .replaceAll('../../', `${REPO}/`),
    );
    commitAll(root);
    const run = cli(root, 'upgrade', '--dry-run');
    expect(run.status).toBe(0);
    git(root, ['apply', '-'], run.stdout);
    for (const name of ['tabs-crlf-bom-double-quotes', 'untouched-crlf-bom-no-final-newline', 'delegating-method']) {
      expect(
        readFileSync(join(root, `${name}.ts`)).equals(readFileSync(join(RECIPE_FIXTURES, name, 'output.ts'))),
      ).toBe(true);
    }
  });

  it('--check exits 1 while changes are needed and 0 once upgraded, writing nothing', () => {
    const root = legacyApp();
    const before = snapshot(root);
    const needed = cli(root, 'upgrade', '--check');
    expect(needed.status).toBe(1);
    expect(needed.stdout).toContain('would upgrade MapCheckpointStorage');
    expect(needed.stdout).toMatch(/4 files would change/);
    expect(snapshot(root)).toEqual(before);
    expect(cli(root, 'upgrade').status).toBe(0);
    expect(cli(root, 'upgrade', '--check').status).toBe(0);
  });

  it('--json reports file, class, line, shape and members added for each implementer', () => {
    const root = legacyApp();
    const run = cli(root, 'upgrade', '--json', '--dry-run');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(report['implementers']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          file: 'src/storages/map-checkpoint-storage.ts',
          class: 'MapCheckpointStorage',
          line: 7,
          shape: 'delegating',
          membersAdded: ['save', 'writeVersion'],
        }),
        expect.objectContaining({
          file: 'src/storages/sql-checkpoint-storage.ts',
          class: 'SqlCheckpointStorage',
          shape: 'delegating',
        }),
        expect.objectContaining({
          file: 'src/storages/postgres-checkpoint-storage.ts',
          class: 'PostgresCheckpointStorage',
          shape: 'follows-base',
          membersAdded: [],
        }),
        expect.objectContaining({
          file: 'src/storages/key-value-checkpoint-storage.ts',
          kind: 'object-literal',
          shape: 'object-literal',
        }),
      ]),
    );
    expect(report['skipped']).toEqual([]);
    expect(report['filesChanged']).toHaveLength(4);
    expect(report['written']).toBe(false);
    expect(report['diff']).toEqual(expect.stringContaining('+  writeVersion(): Promise<bigint | undefined> {'));
    expect(report['summary']).toMatch(SUMMARY);
  });

  it('refuses to write into files with uncommitted changes unless --allow-dirty', () => {
    const root = legacyApp({ git: true });
    appendFileSync(join(root, 'src/storages/map-checkpoint-storage.ts'), '\n// work in progress\n');
    appendFileSync(join(root, 'README.md'), '\nAn unrelated edit.\n');
    const dirty = snapshot(root);
    const refused = cli(root, 'upgrade');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(
      /^checkpoint-fencing-codemod upgrade: .*src\/storages\/map-checkpoint-storage\.ts: uncommitted changes .* --allow-dirty\.\n$/,
    );
    expect(snapshot(root)).toEqual(dirty);

    const allowed = cli(root, 'upgrade', '--allow-dirty');
    expect(allowed.status).toBe(0);
    expect(readFileSync(join(root, 'src/storages/map-checkpoint-storage.ts'), 'utf8')).toContain(
      '  writeVersion(): Promise<bigint | undefined>',
    );
  });

  it('writes into a clean tree when only files it does not touch are dirty', () => {
    const root = legacyApp({ git: true });
    appendFileSync(join(root, 'README.md'), '\nAn unrelated edit.\n');
    expect(cli(root, 'upgrade').status).toBe(0);
    expect(git(root, ['status', '--porcelain'])).toContain(' M src/storages/map-checkpoint-storage.ts');
  });

  it('upgrades only the paths it is given', () => {
    const root = legacyApp();
    const run = cli(root, 'upgrade', 'src/storages/map-checkpoint-storage.ts');
    expect(run.status).toBe(0);
    expect(SUMMARY.exec(run.stdout)?.slice(1, 5)).toEqual(['1', '1', '0', '1']);
    expect(readFileSync(join(root, 'src/storages/postgres-checkpoint-storage.ts'), 'utf8')).toBe(
      readFileSync(join(REPO, 'fixtures/legacy-app/src/storages/postgres-checkpoint-storage.ts'), 'utf8'),
    );
  });

  describe('exits 2 with a one-line message naming the problem, and writes nothing', () => {
    const cases: readonly (readonly [string, (root: string) => string[], RegExp])[] = [
      ['an unknown option', () => ['upgrade', '--frobnicate'], /Unknown option '--frobnicate'.*--help/],
      [
        'a missing tsconfig',
        () => ['upgrade', '--project', 'nope.json'],
        /nope\.json: no tsconfig here; pass the project's tsconfig with --project/,
      ],
      ['a path that does not exist', () => ['upgrade', 'src/missing'], /src\/missing: no such file or directory/],
      [
        'a tsconfig whose "extends" target is missing: the target is named',
        (root) => {
          writeFileSync(
            join(root, 'tsconfig.json'),
            JSON.stringify({ extends: '@tsconfig/node99/tsconfig.json', include: ['src'] }),
          );
          return ['upgrade'];
        },
        /tsconfig\.json: its "extends" target '@tsconfig\/node99\/tsconfig\.json' cannot be found; install the package that provides it or correct the path, then run the upgrade again\.$/m,
      ],
      [
        'a tsconfig that matches no source files',
        (root) => {
          writeFileSync(join(root, 'tsconfig.app.json'), JSON.stringify({ include: ['app/**/*.ts'] }));
          return ['upgrade', '--project', 'tsconfig.app.json'];
        },
        /tsconfig\.app\.json: matches no source files, so nothing would be upgraded/,
      ],
      [
        'a solution-style tsconfig referencing a project that matches no source files',
        (root) => {
          mkdirSync(join(root, 'packages/empty'), { recursive: true });
          writeFileSync(join(root, 'packages/empty/tsconfig.json'), JSON.stringify({ include: ['src'] }));
          writeFileSync(
            join(root, 'tsconfig.solution.json'),
            JSON.stringify({ files: [], references: [{ path: './packages/empty' }] }),
          );
          return ['upgrade', '--project', 'tsconfig.solution.json'];
        },
        /packages\/empty\/tsconfig\.json: matches no source files/,
      ],
      [
        'a file that does not parse',
        (root) => {
          appendFileSync(join(root, 'src/storages/map-checkpoint-storage.ts'), '\nexport class {\n');
          return ['upgrade'];
        },
        /src\/storages\/map-checkpoint-storage\.ts:\d+:\d+: does not parse \(.+\); fix the syntax error/,
      ],
    ];
    for (const [label, setUp, message] of cases) {
      it(label, () => {
        const root = legacyApp();
        const args = setUp(root);
        const before = snapshot(root);
        const run = cli(root, ...args);
        expect(run.status).toBe(2);
        expect(run.stdout).toBe('');
        expect(run.stderr).toMatch(/^checkpoint-fencing-codemod upgrade: [^\n]+\n$/);
        expect(run.stderr).toMatch(message);
        expect(run.stderr).not.toMatch(/\.\s*\./);
        expect(snapshot(root)).toEqual(before);
      });
    }
  });

  it('draws a progress indicator on a terminal and clears it before printing results', () => {
    const root = legacyApp();
    const command = `${process.execPath} ${join(build, 'recipes/cli.js')} upgrade --check`;
    // script(1) gives the CLI a pseudo-terminal, so stderr.isTTY is true as in an interactive shell.
    const result = spawnSync('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd: root, encoding: 'utf8' });
    expect(result.status).toBe(1);
    const redraw = `\r${ESCAPE}[K`;
    expect(result.stdout).toContain(`${redraw}scanning 9/9 files`);
    expect(result.stdout).toContain(`${redraw}analysing 7/7 files`);
    const afterLastRedraw = result.stdout.slice(result.stdout.lastIndexOf(redraw) + redraw.length);
    expect(afterLastRedraw).toMatch(/^would upgrade /);
    expect(afterLastRedraw.trimEnd().split(/\r?\n/).at(-1)).toMatch(SUMMARY);
  });

  it('prints no progress when stderr is not a terminal', () => {
    const run = cli(legacyApp(), 'upgrade', '--check');
    expect(run.stderr).toBe('');
    expect(run.stdout).not.toContain(ESCAPE);
  });
});

describe('the jscodeshift transform through the jscodeshift CLI', { timeout: 90_000 }, () => {
  it("runs every jscodeshift command the codemod's README and the recipe doc show, as written (review 8)", () => {
    const documented = ['recipes/README.md', 'doc/recipes/add-write-conditions.md'].flatMap((doc) =>
      readFileSync(join(REPO, doc), 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('npx jscodeshift ')),
    );
    expect(documented.length).toBeGreaterThanOrEqual(3);
    for (const command of new Set(documented)) {
      const root = temporaryDirectory('jscodeshift-documented');
      mkdirSync(join(root, 'src'));
      cpSync(join(RECIPE_FIXTURES, 'delegating-method/input.ts'), join(root, 'src/storage.ts'));
      // As a user's shell runs it, with npx's jscodeshift and the installed package standing in.
      const args = command
        .split(/\s+/)
        .slice(2)
        .map((arg) => arg.replace(/^node_modules\/checkpoint-fencing-codemod\/dist\//, `${build}/`));
      const result = spawnSync(process.execPath, [join(REPO, 'node_modules/jscodeshift/bin/jscodeshift.js'), ...args], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(result.stderr, command).toBe('');
      expect(result.stdout, command).toMatch(/1 ok/);
      expect(readFileSync(join(root, 'src/storage.ts'), 'utf8'), command).toBe(
        readFileSync(join(RECIPE_FIXTURES, 'delegating-method/output.ts'), 'utf8'),
      );
    }
  });

  it('upgrades TypeScript and JSDoc-annotated JavaScript files in place with --parser=ts', () => {
    const root = temporaryDirectory('jscodeshift-run');
    const cases = [
      ['delegating-method', 'input.ts', 'storage.ts'],
      ['inherited', 'input.ts', 'table.ts'],
      ['jsdoc-typedef-implements', 'input.js', 'object-storage.js'],
      ['untouched-crlf-bom-no-final-newline', 'input.ts', 'untouched.ts'],
    ] as const;
    for (const [name, input, target] of cases) {
      cpSync(join(RECIPE_FIXTURES, name, input), join(root, target));
    }
    const transform = join(build, 'recipes/jscodeshift.cjs');
    const result = spawnSync(
      process.execPath,
      [
        join(REPO, 'node_modules/jscodeshift/bin/jscodeshift.js'),
        '-t',
        transform,
        '--parser=ts',
        '--extensions=ts,js',
        root,
      ],
      { encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/3 ok/);
    for (const [name, input, target] of cases) {
      expect(
        readFileSync(join(root, target)).equals(
          readFileSync(join(RECIPE_FIXTURES, name, input.replace('input', 'output'))),
        ),
      ).toBe(true);
    }
  });
});
