import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateEslintBenchProject } from './eslint-bench-project.js';
import { measurePluginImport } from './eslint-plugin-import.js';
import { parseTimingTable, type RuleTiming } from './eslint-timing-table.js';

// What configs['recommended-type-checked'] adds to linting a 2,000-file project with typescript-eslint's type-checked
// config, measured side by side in one run: the two configs run alternately (A B B A …) in fresh ESLint processes,
// each with TIMING=all so both pay the same timing overhead, and the per-rule shares come from the same runs. A
// warm-up run is not counted.

const repository = path.resolve(import.meta.dirname, '../..');
const fileCount = Number(process.env.BENCH_FILES ?? 2_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const targetOverheadPercent = 2;
const importRuns = Number(process.env.BENCH_IMPORT_RUNS ?? 9);
const benchRoot = path.join(repository, '.tmp/eslint-bench');
const eslintBin = path.join(repository, 'node_modules/eslint/bin/eslint.js');
const pluginPrefix = 'checkpoint-fencing/';

type Variant = 'baseline' | 'with-plugin';

interface Run {
  readonly variant: Variant;
  readonly seconds: number;
  /** User plus system CPU time of the ESLint process. */
  readonly cpuSeconds: number;
  readonly timings: readonly RuleTiming[];
  readonly messagesByRule: ReadonlyMap<string, number>;
}

function writeConfigs(): void {
  const pluginUrl = pathToFileURL(path.join(repository, 'dist/eslint-plugin/index.js')).href;
  for (const variant of ['baseline', 'with-plugin'] as const) {
    const plugin = variant === 'with-plugin';
    writeFileSync(
      path.join(benchRoot, `${variant}.config.mjs`),
      [
        "import tseslint from 'typescript-eslint';",
        plugin ? `import checkpointFencing from '${pluginUrl}';` : '',
        'export default [',
        '  ...tseslint.configs.recommendedTypeChecked,',
        '  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },',
        plugin ? "  checkpointFencing.configs['recommended-type-checked']," : '',
        '];',
        '',
      ].join('\n'),
    );
  }
}

function lint(variant: Variant): Run {
  const report = path.join(benchRoot, `${variant}.report.json`);
  const cpuUsage = path.join(benchRoot, `${variant}.cpu.json`);
  const reporter = pathToFileURL(path.join(import.meta.dirname, 'eslint-cpu-time-reporter.js')).href;
  const started = process.hrtime.bigint();
  const eslintArguments = [
    eslintBin,
    '--config',
    `${variant}.config.mjs`,
    '--format',
    'json',
    '--output-file',
    report,
    'src',
  ];
  const result = spawnSync(process.execPath, ['--import', reporter, ...eslintArguments], {
    cwd: benchRoot,
    env: { ...process.env, TIMING: 'all', BENCH_CPU_USAGE_FILE: cpuUsage },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // Exit status 1 only means lint messages were found; anything else is a failed run.
  if (result.status !== 0 && result.status !== 1) {
    throw new Error(`ESLint (${variant}) exited with ${String(result.status)}: ${result.stderr}`);
  }
  const results = JSON.parse(readFileSync(report, 'utf8')) as { messages: { ruleId: string | null }[] }[];
  const messagesByRule = new Map<string, number>();
  for (const message of results.flatMap((file) => file.messages)) {
    const rule = message.ruleId ?? '(parse error)';
    messagesByRule.set(rule, (messagesByRule.get(rule) ?? 0) + 1);
  }
  const cpu = JSON.parse(readFileSync(cpuUsage, 'utf8')) as { userMicroseconds: number; systemMicroseconds: number };
  const cpuSeconds = (cpu.userMicroseconds + cpu.systemMicroseconds) / 1e6;
  return { variant, seconds, cpuSeconds, timings: parseTimingTable(result.stdout), messagesByRule };
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

mkdirSync(benchRoot, { recursive: true });
const project = generateEslintBenchProject(benchRoot, repository, fileCount);
writeConfigs();
console.log(
  `Generated ${project.files} files in ${path.relative(repository, benchRoot)} (${project.unfencedWrites} with a deliberate unfenced write, ` +
    `${project.splitHeartbeats} dual-anchor stores with a deliberate split heartbeat).`,
);
console.log(
  `Linting with typescript-eslint recommendedTypeChecked, without and with checkpoint-fencing recommended-type-checked, ${rounds} round(s), order A B B A …\n`,
);

const pluginImport = measurePluginImport(
  {
    eslint: path.join(repository, 'node_modules/eslint/lib/api.js'),
    plugin: path.join(repository, 'dist/eslint-plugin/index.js'),
  },
  benchRoot,
  importRuns,
);
console.log(
  `plugin import after ESLint (syntactic lint), median of ${importRuns} fresh processes: ${pluginImport.medianMilliseconds.toFixed(1)} ms, ` +
    `${pluginImport.modules} CommonJS modules; TypeScript compiler or ts-morph loaded: ${pluginImport.compilerFiles.length === 0 ? 'no' : pluginImport.compilerFiles.join(', ')}\n`,
);
if (pluginImport.compilerFiles.length > 0) {
  throw new Error(
    'Loading the plugin for syntactic lint pulled in the TypeScript compiler or ts-morph; keep typed-only code behind the type-aware path.',
  );
}

// A first lint fills the file cache and warms the TypeScript install; it would otherwise count against one side.
const warmUp = lint('baseline');
console.log(
  `warm-up      baseline     wall ${warmUp.seconds.toFixed(2)} s  cpu ${warmUp.cpuSeconds.toFixed(2)} s  (not counted)`,
);
const runs: Run[] = [];
for (let round = 0; round < rounds; round += 1) {
  const order: Variant[] = round % 2 === 0 ? ['baseline', 'with-plugin'] : ['with-plugin', 'baseline'];
  for (const variant of order) {
    const run = lint(variant);
    runs.push(run);
    console.log(
      `round ${round + 1}  ${variant.padEnd(11)}  wall ${run.seconds.toFixed(2)} s  cpu ${run.cpuSeconds.toFixed(2)} s`,
    );
  }
}

const meanOf = (variant: Variant, measure: (run: Run) => number): number =>
  mean(runs.filter((run) => run.variant === variant).map(measure));
const baseline = meanOf('baseline', (run) => run.seconds);
const withPlugin = meanOf('with-plugin', (run) => run.seconds);
const overhead = ((withPlugin - baseline) / baseline) * 100;
const baselineCpu = meanOf('baseline', (run) => run.cpuSeconds);
const withPluginCpu = meanOf('with-plugin', (run) => run.cpuSeconds);
const cpuOverhead = ((withPluginCpu - baselineCpu) / baselineCpu) * 100;
console.log(`\nwall time, mean: baseline ${baseline.toFixed(2)} s, with plugin ${withPlugin.toFixed(2)} s`);
console.log(
  `overhead (wall): ${overhead.toFixed(1)} % (target ≤ ${targetOverheadPercent} %): ${overhead <= targetOverheadPercent ? 'met' : 'NOT met'}`,
);
console.log(
  `cpu time, mean: baseline ${baselineCpu.toFixed(2)} s, with plugin ${withPluginCpu.toFixed(2)} s; overhead (cpu): ${cpuOverhead.toFixed(1)} %`,
);
console.log(
  '(on a shared machine, other load moves wall time far more than CPU time; compare the two before trusting either)',
);

const pluginRuns = runs.filter((run) => run.variant === 'with-plugin');
const totals = new Map<string, number>();
for (const timing of pluginRuns.flatMap((run) => run.timings)) {
  totals.set(timing.rule, (totals.get(timing.rule) ?? 0) + timing.milliseconds);
}
const allRules = [...totals.values()].reduce((sum, value) => sum + value, 0);
const ours = [...totals.entries()].filter(([rule]) => rule.startsWith(pluginPrefix)).sort((a, b) => b[1] - a[1]);
const oursTotal = ours.reduce((sum, [, value]) => sum + value, 0);
console.log('\nTIMING=all, with-plugin runs (mean per run): share of all rule time and of wall time');
for (const [rule, total] of ours) {
  const perRun = total / pluginRuns.length;
  console.log(
    `  ${rule.padEnd(46)} ${perRun.toFixed(1).padStart(8)} ms  ${((total / allRules) * 100).toFixed(2).padStart(6)} % of rules  ${((perRun / 1000 / withPlugin) * 100).toFixed(2).padStart(6)} % of wall`,
  );
}
console.log(
  `  ${'all checkpoint-fencing rules'.padEnd(46)} ${(oursTotal / pluginRuns.length).toFixed(1).padStart(8)} ms  ${((oursTotal / allRules) * 100).toFixed(2).padStart(6)} % of rules  ${((oursTotal / pluginRuns.length / 1000 / withPlugin) * 100).toFixed(2).padStart(6)} % of wall`,
);
console.log(
  `  (all rules together: ${(allRules / pluginRuns.length / 1000).toFixed(2)} s per run; the rest of the wall time is parsing and type-checking)`,
);

const reported = pluginRuns[0]?.messagesByRule ?? new Map<string, number>();
console.log('\ncheckpoint-fencing messages in one with-plugin run (the rules did run):');
for (const [rule, count] of [...reported.entries()].filter(([rule]) => rule.startsWith(pluginPrefix)).sort()) {
  console.log(`  ${rule}: ${count}`);
}
if ((reported.get(`${pluginPrefix}no-unfenced-write`) ?? 0) !== project.unfencedWrites) {
  throw new Error(
    `Expected ${project.unfencedWrites} no-unfenced-write reports, one per deliberate unfenced write; the rules did not run as configured.`,
  );
}
if ((reported.get(`${pluginPrefix}no-split-anchor-heartbeat`) ?? 0) !== project.splitHeartbeats) {
  throw new Error(
    `Expected ${project.splitHeartbeats} no-split-anchor-heartbeat reports, one per deliberate split heartbeat; the dual-anchor rules did not run as configured.`,
  );
}
