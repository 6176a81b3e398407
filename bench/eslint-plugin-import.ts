import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** What importing the plugin costs a fresh process that has loaded ESLint and nothing else (syntactic lint). */
export interface PluginImport {
  /** Milliseconds the plugin's `import()` took, the median over the runs. */
  readonly medianMilliseconds: number;
  /** CommonJS modules the import added (ESLint's own were loaded before). */
  readonly modules: number;
  /** Files of the TypeScript compiler or ts-morph the import loaded; empty is the requirement. */
  readonly compilerFiles: readonly string[];
}

/**
 * Imports the built plugin in `runs` fresh Node processes after ESLint, timing only the plugin's own import and
 * listing what it loaded, so a dependency that drags the compiler into syntactic lint shows up here.
 */
export function measurePluginImport(
  entries: { readonly eslint: string; readonly plugin: string },
  workDirectory: string,
  runs: number,
): PluginImport {
  const script = path.join(workDirectory, 'import-plugin.mjs');
  writeFileSync(
    script,
    [
      "import { createRequire } from 'node:module';",
      "import { performance } from 'node:perf_hooks';",
      'const require = createRequire(import.meta.url);',
      `await import(${JSON.stringify(pathToFileURL(entries.eslint).href)});`,
      'const before = new Set(Object.keys(require.cache));',
      'const started = performance.now();',
      `await import(${JSON.stringify(pathToFileURL(entries.plugin).href)});`,
      'const milliseconds = performance.now() - started;',
      'const loaded = Object.keys(require.cache).filter((file) => !before.has(file));',
      'const compilerFiles = loaded.filter((file) => /node_modules[\\\\/](?:typescript|ts-morph|@ts-morph)[\\\\/]/.test(file));',
      'console.log(JSON.stringify({ milliseconds, modules: loaded.length, compilerFiles }));',
      '',
    ].join('\n'),
  );
  const samples: { milliseconds: number; modules: number; compilerFiles: string[] }[] = [];
  for (let run = 0; run < runs; run += 1) {
    const result = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    if (result.status !== 0) {
      throw new Error(`importing the plugin failed: ${result.stderr}`);
    }
    samples.push(JSON.parse(result.stdout) as { milliseconds: number; modules: number; compilerFiles: string[] });
  }
  const sorted = samples.map((sample) => sample.milliseconds).sort((a, b) => a - b);
  return {
    medianMilliseconds: sorted[Math.floor(sorted.length / 2)] ?? 0,
    modules: samples[0]?.modules ?? 0,
    compilerFiles: [...new Set(samples.flatMap((sample) => sample.compilerFiles))],
  };
}
