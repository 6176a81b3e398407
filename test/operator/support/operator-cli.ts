import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { InspectionJsonRow } from '../../../operator/inspection-report.js';
import { builtPackage } from '../../support/built-package.js';

const repository = resolve(import.meta.dirname, '../../..');

/** What one run of the bin printed and how it ended. */
export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The process's peak resident set size (VmHWM), in KiB, read from /proc while it ran. */
  readonly peakRssKiB: number;
  readonly durationMs: number;
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** Where the bin runs: it resolves ioredis and pg from here first. The repository by default. */
  readonly cwd?: string;
  /** The bin to run; the package built from the current sources by default. */
  readonly bin?: string;
  /** Node's own options, before the bin (e.g. `--max-old-space-size=16`). */
  readonly nodeOptions?: readonly string[];
}

/**
 * The bin of checkpoint-fencing-cli as it installs, with the runtime beside it, built once from the current sources and
 * shared by every file and run (`builtPackage('operator')`, keyed by a hash of the sources): the CLI tests spawn it and
 * never build per test.
 */
export function builtBin(): string {
  return join(builtPackage('operator'), 'dist/operator/cli.js');
}

/**
 * Runs `checkpoint-fencing …args` as a child process, without blocking the test process (whose own nodes keep
 * running beside it), and measures its peak RSS by polling /proc/<pid>/status, whose VmHWM is the high-water mark.
 */
export async function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliRun> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...(options.nodeOptions ?? []), options.bin ?? builtBin(), ...args], {
    cwd: options.cwd ?? repository,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let peakRssKiB = 0;
  const sample = (): void => {
    try {
      const match = /^VmHWM:\s+(\d+) kB$/mu.exec(readFileSync(`/proc/${child.pid ?? 0}/status`, 'utf8'));
      peakRssKiB = Math.max(peakRssKiB, Number(match?.[1] ?? 0));
    } catch {
      // The process has exited; the last sample stands.
    }
  };
  const sampler = setInterval(sample, 20);
  const status = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      resolve(code);
    });
  });
  clearInterval(sampler);
  await new Promise((resolve) => setImmediate(resolve));
  return { status, stdout, stderr, peakRssKiB, durationMs: performance.now() - startedAt };
}

/** Parses `inspect --json` output. */
export function jsonRows(run: CliRun): InspectionJsonRow[] {
  return JSON.parse(run.stdout) as InspectionJsonRow[];
}

/** The text report's table rows, each split into its cells (by two or more spaces), keyed by the first cell. */
export function textRows(run: CliRun): Map<string, string[]> {
  const lines = run.stdout.split('\n');
  const header = lines.findIndex((line) => line.startsWith('SUBSCRIPTION'));
  const rows = new Map<string, string[]>();
  for (const line of lines.slice(header + 1)) {
    if (line === '' || line.startsWith('!') || line.startsWith('? "') || /^\d+ subscriptions?,/u.test(line)) {
      continue;
    }
    const cells = line.split(/ {2,}/u);
    rows.set(cells[0] ?? '', cells);
  }
  return rows;
}
