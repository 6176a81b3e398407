import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The add-write-conditions CLI against a jscodeshift no-op transform over the same generated 3,000-file TypeScript
// project with five implementers, measured side by side in one run (wall time and peak RSS via /usr/bin/time).
// Both read every file; only the CLI parses anything, and it parses with types only the files that can reach
// checkpoint-fencing. Rounds alternate the two sides so load from other processes hits both alike.

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fileCount = Number(process.env.BENCH_FILES ?? 3_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
/** `upgrade --check` must take at most this share of a jscodeshift no-op's wall time. */
const targetRatio = 0.6;

function generateProject(root: string): void {
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2023',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noImplicitOverride: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: true,
        noEmit: true,
        // As if installed: the package's published declarations.
        paths: { 'checkpoint-fencing': [join(repo, 'dist/runtime/index.d.ts')] },
      },
      include: ['src'],
    }),
  );
  const implementers = [
    ['MapStorage', 'own'],
    ['ArrowStorage', 'arrow'],
    ['TableStorage', 'inherited'],
    ['ReadOnlyStorage', 'refusing'],
    ['HalfStorage', 'own'],
  ] as const;
  for (const [index, [name, shape]] of implementers.entries()) {
    const save =
      shape === 'own'
        ? '  async save(id: string, cp: string): Promise<string> {\n    this.rows.set(id, cp);\n    return cp;\n  }\n'
        : shape === 'arrow'
          ? '  save = async (id: string, cp: string): Promise<string> => {\n    this.rows.set(id, cp);\n    return cp;\n  };\n'
          : '';
    const base = shape === 'inherited' ? ' extends Table' : '';
    const table =
      shape === 'inherited'
        ? 'class Table {\n  protected readonly rows = new Map<string, string>();\n\n  async save(id: string, cp: string): Promise<string> {\n    this.rows.set(id, cp);\n    return cp;\n  }\n}\n\n'
        : '';
    const rows = shape === 'inherited' ? '' : '  protected readonly rows = new Map<string, string>();\n\n';
    writeFileSync(
      join(root, 'src', `storage-${index}.ts`),
      `import type { CheckpointStorage } from 'checkpoint-fencing';\nimport { helper0 } from './module-0.js';\n\n${table}export class ${name}${base} implements CheckpointStorage {\n${rows}  async read(id: string): Promise<string | undefined> {\n    return this.rows.get(helper0(id));\n  }\n\n${save}${save === '' ? '' : '\n'}  async delete(id: string): Promise<void> {\n    this.rows.delete(id);\n  }\n}\n`,
    );
  }
  for (let index = 0; index < fileCount - implementers.length; index += 1) {
    const folder = join(root, 'src', `area-${index % 30}`);
    mkdirSync(folder, { recursive: true });
    const previous =
      index === 0
        ? ''
        : `import { helper${index - 1} } from '${index % 30 === (index - 1) % 30 ? '.' : `../area-${(index - 1) % 30}`}/module-${index - 1}.js';\n`;
    const body = Array.from(
      { length: 12 },
      (_, line) =>
        `  const value${line} = input.length * ${line} + ${index};\n  if (value${line} % 7 === 3) {\n    return \`\${input}-${line}\`;\n  }\n`,
    ).join('');
    writeFileSync(
      join(index === 0 ? join(root, 'src') : folder, `module-${index}.ts`),
      `${previous}/** Generated module ${index}. */\nexport function helper${index}(input: string): string {\n${body}  return ${index === 0 ? 'input' : `helper${index - 1}(input)`};\n}\n\nexport interface Record${index} {\n  readonly id: string;\n  readonly count: number;\n}\n`,
    );
  }
}

interface Measurement {
  readonly seconds: number;
  /** User plus system CPU time of the process and the children it waited for (jscodeshift's workers). */
  readonly cpuSeconds: number;
  readonly peakMegabytes: number;
}

/** Runs `args` under GNU time; the exit status may be 1 (`--check` with changes pending). */
function measure(args: readonly string[], cwd: string): Measurement {
  const report = join(cwd, '.time');
  try {
    execFileSync('/usr/bin/time', ['-o', report, '-f', '%e %U %S %M', ...args], { cwd, stdio: 'ignore' });
  } catch (error) {
    if ((error as { status?: number }).status !== 1) {
      throw error;
    }
  }
  const [seconds = '0', user = '0', system = '0', kilobytes = '0'] = execFileSync('tail', ['-n', '1', report], {
    encoding: 'utf8',
  })
    .trim()
    .split(' ');
  return {
    seconds: Number(seconds),
    cpuSeconds: Number(user) + Number(system),
    peakMegabytes: Number(kilobytes) / 1024,
  };
}

const root = mkdtempSync(join(tmpdir(), 'recipe-bench-'));
try {
  generateProject(root);
  const cli = [process.execPath, join(repo, 'recipes/dist/recipes/cli.js'), 'upgrade', '--check'];
  const noop = [
    process.execPath,
    join(repo, 'node_modules/jscodeshift/bin/jscodeshift.js'),
    '-t',
    join(repo, 'dist/bench/recipe-noop-transform.js'),
    '--parser=ts',
    '--extensions=ts',
    '--no-babel',
    '--silent',
    'src',
  ];
  const results: { cli: Measurement; noop: Measurement }[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const cliRun = measure(cli, root);
    const noopRun = measure(noop, root);
    results.push({ cli: cliRun, noop: noopRun });
    console.log(
      `round ${round + 1}: upgrade --check ${cliRun.seconds.toFixed(2)}s, jscodeshift no-op ${noopRun.seconds.toFixed(2)}s`,
    );
  }
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const cliSeconds = median(results.map((result) => result.cli.seconds));
  const noopSeconds = median(results.map((result) => result.noop.seconds));
  const cliCpu = median(results.map((result) => result.cli.cpuSeconds));
  const noopCpu = median(results.map((result) => result.noop.cpuSeconds));
  const cliPeak = Math.max(...results.map((result) => result.cli.peakMegabytes));
  const noopPeak = Math.max(...results.map((result) => result.noop.peakMegabytes));
  console.log(`${fileCount} files, 5 implementers, median of ${rounds} rounds:`);
  console.log(
    `  checkpoint-fencing-codemod upgrade --check: ${cliSeconds.toFixed(2)}s wall, ${cliCpu.toFixed(2)}s CPU, peak RSS ${cliPeak.toFixed(0)} MB`,
  );
  console.log(
    `  jscodeshift no-op transform:        ${noopSeconds.toFixed(2)}s wall, ${noopCpu.toFixed(2)}s CPU, peak RSS ${noopPeak.toFixed(0)} MB (largest single process)`,
  );
  const ratio = cliSeconds / noopSeconds;
  console.log(
    `  ratio CLI / jscodeshift no-op: ${ratio.toFixed(2)} (${cliSeconds < noopSeconds ? 'CLI faster' : 'CLI slower'}; target ≤ ${targetRatio}: ${ratio <= targetRatio ? 'met' : 'NOT met'})`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
