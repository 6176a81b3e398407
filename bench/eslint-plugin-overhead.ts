import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { generateEslintBenchProject } from './eslint-bench-project.js';
import { measurePluginImport } from './eslint-plugin-import.js';
import { parseTimingTable, type RuleTiming } from './eslint-timing-table.js';

// What configs['recommended-type-checked'] adds to linting a 2,000-file project with typescript-eslint's type-checked
// config, measured side by side in one run: each round lints the project with both configs at the same time, in two
// fresh ESLint processes, and a warm-up run is not counted.
//
// How the figure is made, and why (the overhead is a few percent of a 20-second run, so the method decides it):
// - Each round runs both sides concurrently and yields one paired ratio, with-plugin over baseline, of wall time and
//   of the process's CPU time; the figure is the median of those ratios over the rounds (BENCH_ROUNDS, 20 by default).
//   Load on a shared machine comes and goes within seconds: run one after the other, the two sides of a round saw
//   different load (paired CPU ratios from -8 % to +9 % in one run); run at once, they see the same. A median is not
//   pulled by the one round another process disturbed. The means are printed too.
// - Even so, one round's ratio has a standard deviation of about 2 % (wall) and 3 % (CPU) on the 2-core VM, as large as
//   the target: 5 rounds gave verdicts from 0.6 to 5.5 % on the same code. With 20 rounds (about 8 minutes) the
//   medians' standard errors are about 0.6 and 0.9 %, and each figure is printed with the 95 % confidence interval of
//   its mean, so a reader sees how far one run can be trusted.
// - The verdict takes the larger of the wall and CPU figures, so neither can hide the other.
// - The A/B runs do not set TIMING, as users do not: ESLint's TIMING wraps every listener call in a clock read, which
//   costs the side with more listeners more. The per-rule table comes from extra with-plugin runs with TIMING=all
//   (BENCH_TIMING_RUNS, 1 by default), printed with their own wall and CPU time so that cost stays visible.
// Until issue 12's lint-speed work the sides ran one after the other (A B B A), with TIMING=all on both, 3 rounds,
// and the verdict on mean wall time.

const repository = path.resolve(import.meta.dirname, '../..');
const fileCount = Number(process.env.BENCH_FILES ?? 2_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 20);
const timingRuns = Number(process.env.BENCH_TIMING_RUNS ?? 1);
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
  const pluginUrl = pathToFileURL(path.join(repository, 'eslint-plugin/dist/eslint-plugin/index.js')).href;
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

const run = promisify(execFile);

async function lint(variant: Variant, timing: boolean): Promise<Run> {
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
  const result = await run(process.execPath, ['--import', reporter, ...eslintArguments], {
    cwd: benchRoot,
    env: { ...withoutTiming(process.env), ...(timing ? { TIMING: 'all' } : {}), BENCH_CPU_USAGE_FILE: cpuUsage },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    ({ stdout, stderr }) => ({ status: 0, stdout, stderr }),
    (error: unknown) => {
      const failed = error as { code?: unknown; stdout?: string; stderr?: string };
      return { status: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? String(error) };
    },
  );
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

/** The environment without a TIMING the caller may have set: the A/B runs must not carry it. */
function withoutTiming(environment: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(environment).filter(([name]) => name !== 'TIMING'));
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Student's t quantiles for 95 % two-sided intervals with 1 to 9 degrees of freedom, from the table. */
const SMALL_SAMPLE_T = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262];

/**
 * Half the width of the 95 % confidence interval of the mean of `values`, by Student's t: from the table up to 9
 * degrees of freedom, beyond by the first two terms of its expansion in 1/degrees, within 0.2 % of the table there.
 */
function confidenceHalfWidth(values: readonly number[]): number {
  const degrees = values.length - 1;
  if (degrees < 1) {
    return Number.NaN;
  }
  const average = mean(values);
  const variance = values.reduce((sum, value) => sum + (value - average) ** 2, 0) / degrees;
  const z = 1.959964;
  const t =
    SMALL_SAMPLE_T[degrees - 1] ??
    z + (z ** 3 + z) / (4 * degrees) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * degrees ** 2);
  return (t * Math.sqrt(variance)) / Math.sqrt(values.length);
}

function percent(ratio: number): string {
  return `${((ratio - 1) * 100).toFixed(1)} %`;
}

mkdirSync(benchRoot, { recursive: true });
const project = generateEslintBenchProject(benchRoot, repository, fileCount);
writeConfigs();
console.log(
  `Generated ${project.files} files in ${path.relative(repository, benchRoot)} (${project.unfencedWrites} with a deliberate unfenced write, ` +
    `${project.splitHeartbeats} dual-anchor stores with a deliberate split heartbeat).`,
);
console.log(
  `Linting with typescript-eslint recommendedTypeChecked, without and with checkpoint-fencing recommended-type-checked, ${rounds} round(s), both sides at once; no TIMING in these runs\n`,
);

const pluginImport = measurePluginImport(
  {
    eslint: path.join(repository, 'node_modules/eslint/lib/api.js'),
    plugin: path.join(repository, 'eslint-plugin/dist/eslint-plugin/index.js'),
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
const warmUp = await lint('baseline', false);
console.log(
  `warm-up      baseline     wall ${warmUp.seconds.toFixed(2)} s  cpu ${warmUp.cpuSeconds.toFixed(2)} s  (not counted)`,
);
const runs: Run[] = [];
const wallRatios: number[] = [];
const cpuRatios: number[] = [];
for (let round = 0; round < rounds; round += 1) {
  // Both sides at once, started in alternating order: whatever else loads the machine then loads both alike.
  const order: Variant[] = round % 2 === 0 ? ['baseline', 'with-plugin'] : ['with-plugin', 'baseline'];
  const pair = await Promise.all(order.map((variant) => lint(variant, false)));
  const baselineRun = pair.find((run) => run.variant === 'baseline');
  const pluginRun = pair.find((run) => run.variant === 'with-plugin');
  if (baselineRun === undefined || pluginRun === undefined) {
    throw new Error('a round lost one of its two runs');
  }
  runs.push(baselineRun, pluginRun);
  wallRatios.push(pluginRun.seconds / baselineRun.seconds);
  cpuRatios.push(pluginRun.cpuSeconds / baselineRun.cpuSeconds);
  console.log(
    `round ${round + 1}  baseline wall ${baselineRun.seconds.toFixed(2)} s cpu ${baselineRun.cpuSeconds.toFixed(2)} s, ` +
      `with-plugin wall ${pluginRun.seconds.toFixed(2)} s cpu ${pluginRun.cpuSeconds.toFixed(2)} s: ` +
      `wall ${percent(pluginRun.seconds / baselineRun.seconds)}, cpu ${percent(pluginRun.cpuSeconds / baselineRun.cpuSeconds)}`,
  );
}

const meanOf = (variant: Variant, measure: (run: Run) => number): number =>
  mean(runs.filter((run) => run.variant === variant).map(measure));
const baseline = meanOf('baseline', (run) => run.seconds);
const withPlugin = meanOf('with-plugin', (run) => run.seconds);
const baselineCpu = meanOf('baseline', (run) => run.cpuSeconds);
const withPluginCpu = meanOf('with-plugin', (run) => run.cpuSeconds);
const wallOverhead = median(wallRatios);
const cpuOverhead = median(cpuRatios);
const verdict = Math.max(wallOverhead, cpuOverhead);
console.log(
  `\nwall time, mean: baseline ${baseline.toFixed(2)} s, with plugin ${withPlugin.toFixed(2)} s (${percent(withPlugin / baseline)})`,
);
console.log(
  `cpu time, mean: baseline ${baselineCpu.toFixed(2)} s, with plugin ${withPluginCpu.toFixed(2)} s (${percent(withPluginCpu / baselineCpu)})`,
);
console.log(
  `overhead, median of ${wallRatios.length} paired rounds: wall ${percent(wallOverhead)}, cpu ${percent(cpuOverhead)}`,
);
console.log(
  `overhead, mean of the paired rounds with its 95 % confidence interval: ` +
    `wall ${percent(mean(wallRatios))} ± ${(confidenceHalfWidth(wallRatios) * 100).toFixed(1)}, ` +
    `cpu ${percent(mean(cpuRatios))} ± ${(confidenceHalfWidth(cpuRatios) * 100).toFixed(1)}`,
);
console.log(
  `overhead (the larger of the two): ${percent(verdict)} (target ≤ ${targetOverheadPercent} %): ${(verdict - 1) * 100 <= targetOverheadPercent ? 'met' : 'NOT met'}`,
);
console.log(
  '(on a shared machine, other load moves wall time far more than CPU time; compare the two before trusting either)',
);

const pluginRuns: Run[] = [];
for (let run = 0; run < timingRuns; run += 1) {
  const timed = await lint('with-plugin', true);
  pluginRuns.push(timed);
  console.log(
    `\nTIMING=all with-plugin run ${run + 1}: wall ${timed.seconds.toFixed(2)} s  cpu ${timed.cpuSeconds.toFixed(2)} s (not in the figures above)`,
  );
}
if (pluginRuns.length > 0) {
  const timedWall = mean(pluginRuns.map((run) => run.seconds));
  const totals = new Map<string, number>();
  for (const timing of pluginRuns.flatMap((run) => run.timings)) {
    totals.set(timing.rule, (totals.get(timing.rule) ?? 0) + timing.milliseconds);
  }
  const allRules = [...totals.values()].reduce((sum, value) => sum + value, 0);
  const ours = [...totals.entries()].filter(([rule]) => rule.startsWith(pluginPrefix)).sort((a, b) => b[1] - a[1]);
  const oursTotal = ours.reduce((sum, [, value]) => sum + value, 0);
  console.log('TIMING=all, with-plugin runs (mean per run): share of all rule time and of wall time');
  for (const [rule, total] of ours) {
    const perRun = total / pluginRuns.length;
    console.log(
      `  ${rule.padEnd(46)} ${perRun.toFixed(1).padStart(8)} ms  ${((total / allRules) * 100).toFixed(2).padStart(6)} % of rules  ${((perRun / 1000 / timedWall) * 100).toFixed(2).padStart(6)} % of wall`,
    );
  }
  console.log(
    `  ${'all checkpoint-fencing rules'.padEnd(46)} ${(oursTotal / pluginRuns.length).toFixed(1).padStart(8)} ms  ${((oursTotal / allRules) * 100).toFixed(2).padStart(6)} % of rules  ${((oursTotal / pluginRuns.length / 1000 / timedWall) * 100).toFixed(2).padStart(6)} % of wall`,
  );
  console.log(
    `  (all rules together: ${(allRules / pluginRuns.length / 1000).toFixed(2)} s per run; the rest of the wall time is parsing and type-checking)`,
  );
}

const reported = runs.find((run) => run.variant === 'with-plugin')?.messagesByRule ?? new Map<string, number>();
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
