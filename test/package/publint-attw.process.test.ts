import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { describe, expect, it } from 'vitest';
import {
  CLI_PACKAGE_NAME,
  CODEMOD_PACKAGE_NAME,
  ESLINT_PLUGIN_PACKAGE_NAME,
  PACKAGE_NAME,
} from '../../vocabulary/index.js';
import { packedTarball } from '../support/packed-tarball.js';

const run = promisify(execFile);
const ATTW = resolve(import.meta.dirname, '../../node_modules/@arethetypeswrong/cli/dist/index.js');

/**
 * How arethetypeswrong checks a group of a package's entries: `strict` in every resolution mode (node10, node16 from
 * CommonJS and from ESM, bundler); `esm-only` for an entry that is an ES module by design, where node10 and a
 * CommonJS `require` are not asked for.
 */
interface AttwCheck {
  readonly entrypoints: readonly string[];
  readonly profile: 'strict' | 'esm-only';
}

/**
 * Every entry of every tarball but `./package.json`, with the profile it is held to (doc/adr/0707). The runtime's
 * entries load both ways; so does the plugin, whose `require` gives eslintrc and Yarn Plug'n'Play a CommonJS file
 * (doc/adr/0316); its kits and the codemod's API are ES modules; the codemod's jscodeshift transform ships a CommonJS
 * file of its own for jscodeshift's `require`. The CLI is a bin and declares no types.
 */
const ATTW_CHECKS: Readonly<Record<string, readonly AttwCheck[]>> = {
  [PACKAGE_NAME]: [
    { entrypoints: ['.', './dual-anchor', './store-layout'], profile: 'strict' },
    { entrypoints: ['./testing'], profile: 'esm-only' },
  ],
  [CODEMOD_PACKAGE_NAME]: [
    { entrypoints: ['./jscodeshift'], profile: 'strict' },
    { entrypoints: ['.'], profile: 'esm-only' },
  ],
  [ESLINT_PLUGIN_PACKAGE_NAME]: [{ entrypoints: ['.'], profile: 'strict' }],
  [CLI_PACKAGE_NAME]: [],
};

/** The resolution modes a profile does not ask about, as attw's CLI defines its profiles. */
const IGNORED_RESOLUTIONS: Readonly<Record<AttwCheck['profile'], readonly string[]>> = {
  strict: [],
  'esm-only': ['node10', 'node16-cjs'],
};

/** One problem attw found: its kind, the entry, and the resolution mode it was found in (none for some kinds). */
interface AttwProblem {
  readonly kind: string;
  readonly entrypoint?: string;
  readonly resolutionKind?: string;
}

/**
 * What `attw --format json` prints: the analysis (with `types: false` for a package without any) and every problem
 * found, those its profile ignores included.
 */
interface AttwReport {
  readonly analysis: { readonly types: unknown };
  readonly problems?: Readonly<Record<string, readonly AttwProblem[]>>;
}

/** Runs the attw CLI on `tarball`; its exit code is 1 when a problem its profile counts is found. */
async function attw(tarball: string, ...args: string[]): Promise<{ exitCode: number; report: AttwReport }> {
  const { stdout, exitCode } = await run(process.execPath, [ATTW, tarball, '--format', 'json', ...args], {
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    ({ stdout }) => ({ stdout, exitCode: 0 }),
    (error: unknown) => {
      const { stdout, code } = error as { stdout?: string; code?: unknown };
      return { stdout: stdout ?? '', exitCode: typeof code === 'number' ? code : -1 };
    },
  );
  return { exitCode, report: JSON.parse(stdout) as AttwReport };
}

/**
 * The four tarballs of `npm pack --workspaces` through publint and arethetypeswrong, as a registry user's tools would
 * see them: publint with no error and no warning; attw with no problem for any entry in the resolution modes its
 * design promises.
 */
describe('publint and arethetypeswrong on the packed tarballs', { timeout: 900_000 }, () => {
  for (const [name, checks] of Object.entries(ATTW_CHECKS)) {
    it(`${name}: publint reports no error and no warning`, async () => {
      const { file } = packedTarball(name);
      const tarball = await readFile(file);
      const { messages, pkg } = await publint({
        pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) },
        level: 'warning',
      });
      expect(messages.map((message) => `${message.type}: ${formatMessage(message, pkg) ?? message.code}`)).toEqual([]);
    });

    it(`${name}: attw checks every entry, and finds no problem`, async () => {
      const { file, manifest } = packedTarball(name);
      const entries = Object.keys(manifest.exports).filter((entry) => entry !== './package.json');
      expect(checks.flatMap((check) => check.entrypoints).sort()).toEqual(entries.sort());
      for (const { entrypoints, profile } of checks) {
        if (profile === 'esm-only') {
          // Declared as ES modules, not dressed as CommonJS: no `require` condition with types of its own.
          for (const entry of entrypoints) {
            expect(JSON.stringify(manifest.exports[entry]), `exports["${entry}"]`).not.toContain('require');
          }
        }
        const { exitCode, report } = await attw(file, '--profile', profile, '--entrypoints', ...entrypoints);
        const counted = Object.values(report.problems ?? {})
          .flat()
          .filter((problem) => !IGNORED_RESOLUTIONS[profile].includes(problem.resolutionKind ?? ''));
        expect({ entrypoints, profile, exitCode, counted }).toEqual({ entrypoints, profile, exitCode: 0, counted: [] });
      }
      if (checks.length === 0) {
        // A bin: attw finds no types to check, and says so without failing.
        const { exitCode, report } = await attw(file);
        expect({ exitCode, types: report.analysis.types }).toEqual({ exitCode: 0, types: false });
      }
    });
  }
});
