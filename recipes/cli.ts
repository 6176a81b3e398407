#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { CODEMOD_PACKAGE_NAME, packageVersion } from '../vocabulary/index.js';
import { gitWorkTreeRoot } from './add-write-conditions/git-worktree.js';
import { summaryLine, type FileChange } from './add-write-conditions/upgrade-report.js';
import { upgradeMessages } from './add-write-conditions/upgrade-messages.js';
import type { UpgradeOptions } from './add-write-conditions/upgrade.js';

// The codemod package's bin, run once with `npx checkpoint-fencing-codemod upgrade`.

const USAGE = `Usage: ${CODEMOD_PACKAGE_NAME} upgrade [options]

Commands:
  upgrade   move pre-fencing CheckpointStorage implementers to the current interface
Run ${CODEMOD_PACKAGE_NAME} upgrade --help for its options, ${CODEMOD_PACKAGE_NAME} --version for the version.`;

const UPGRADE_USAGE = `Usage: ${CODEMOD_PACKAGE_NAME} upgrade [paths…] [--project tsconfig.json] [--dry-run] [--check] [--json] [--allow-dirty] [--no-lint-fix]

Adds the three-parameter save and writeVersion to every pre-fencing CheckpointStorage implementer.
  --project <file>  the tsconfig that defines the project (default: a workspace's, else the nearest tsconfig.json)
  --dry-run         print a unified diff (git apply accepts it) and write nothing
  --check           write nothing; exit 1 when any file would change or any implementer is skipped
  --json            print a machine-readable report instead of text
  --allow-dirty     write even into files with uncommitted git changes
  --no-lint-fix     do not apply the project's ESLint fixes to the lines the upgrade writes
Exit codes: 0 success, 1 changes needed (or implementers skipped) under --check, 2 error.`;

const [EXIT_OK, EXIT_CHANGES_NEEDED, EXIT_ERROR] = [0, 1, 2];

async function dispatch([command, ...args]: readonly string[]): Promise<number> {
  switch (command) {
    case 'upgrade':
      return upgradeCommand(args);
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return EXIT_OK;
    case '--version':
    case '-v':
      process.stdout.write(`${packageVersion(CODEMOD_PACKAGE_NAME)}\n`);
      return EXIT_OK;
    default:
      process.stderr.write(
        `${CODEMOD_PACKAGE_NAME}: ${command === undefined ? 'missing command' : `unknown command ${JSON.stringify(command)}`}; ` +
          `the command is "upgrade"; run ${CODEMOD_PACKAGE_NAME} --help.\n`,
      );
      return EXIT_ERROR;
  }
}

// Expected failures (an UpgradeError, a usage error) in one line; anything else with its stack.
dispatch(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const { name, message: reason, stack, code } = error instanceof Error ? (error as Error & { code?: unknown }) : {};
    const message = String(code).startsWith('ERR_PARSE_ARGS_')
      ? upgradeMessages.badArguments(reason ?? '')
      : name === 'UpgradeError'
        ? reason
        : (stack ?? reason ?? String(error));
    process.stderr.write(`${CODEMOD_PACKAGE_NAME} upgrade: ${message}\n`);
    process.exitCode = EXIT_ERROR;
  },
);

/** Runs `checkpoint-fencing-codemod upgrade …argv` to its exit code. */
async function upgradeCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      project: { type: 'string', short: 'p' },
      'dry-run': { type: 'boolean' },
      check: { type: 'boolean' },
      json: { type: 'boolean' },
      'allow-dirty': { type: 'boolean' },
      'no-lint-fix': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) {
    process.stdout.write(`${UPGRADE_USAGE}\n`);
    return EXIT_OK;
  }
  const json = values.json === true;
  const mode: UpgradeOptions['mode'] =
    values.check === true ? 'check' : values['dry-run'] === true ? 'dry-run' : 'write';
  const progress = !json && process.stderr.isTTY ? createProgress() : undefined;
  // Loaded only now: ts-morph takes a noticeable fraction of a second, which --help and usage errors need not pay.
  const { upgrade } = await import('./add-write-conditions/upgrade.js');
  const report = await upgrade({
    paths: positionals,
    ...(values.project === undefined ? {} : { project: values.project }),
    mode,
    allowDirty: values['allow-dirty'] === true,
    lintFix: values['no-lint-fix'] !== true,
    ...(progress === undefined ? {} : { onProgress: progress.update }),
  }).finally(() => {
    progress?.clear();
  });
  const cwd = process.cwd();
  const show = (file: string): string => relative(cwd, file).split('\\').join('/');
  const diff = values['dry-run'] === true ? unifiedDiff(report.changes, cwd) : undefined;

  if (json) {
    const summary = {
      filesScanned: report.filesScanned,
      filesAnalysed: report.filesAnalysed,
      filesChanged: report.changes.map((change) => show(change.file)),
      written: report.written,
      durationMs: Math.round(report.durationMs),
      implementers: report.implementers.map((implementer) => ({ ...implementer, file: show(implementer.file) })),
      skipped: report.skipped.map((skipped) => ({ ...skipped, file: show(skipped.file) })),
      lintFixes: report.changes.flatMap(({ file, lintFixes }) =>
        lintFixes ? [{ file: show(file), rules: lintFixes }] : [],
      ),
      notices: report.notices,
      ...(diff === undefined ? {} : { diff }),
      summary: summaryLine(report),
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    const [applied, upgraded] = report.written ? ['applied', 'upgraded'] : ['would apply', 'would upgrade'];
    const warnings = [
      ...report.notices,
      ...report.changes.flatMap(({ file, lintFixes = [] }) =>
        lintFixes.length === 0
          ? []
          : `${show(file)}: ${applied} the project's ESLint fixes for ${lintFixes.join(', ')} to the lines the upgrade wrote.`,
      ),
      ...report.skipped.map(
        ({ class: name, file, line, reason }) => `skipped ${name} (${show(file)}:${line}): ${reason}`,
      ),
    ];
    const done = report.implementers.flatMap((implementer) => {
      const { class: name, file, line, shape, membersAdded, unconditionalSaveRenamedTo: renamedTo } = implementer;
      const added = membersAdded.length > 0 ? `adds ${membersAdded.join(', ')}` : `renames save to ${renamedTo ?? ''}`;
      const said = membersAdded.length > 0 || shape === 'follows-base';
      return said ? `${upgraded} ${name} (${show(file)}:${line}): ${shape} shape, ${added}` : [];
    });
    process.stderr.write(warnings.map((line) => `${line}\n`).join(''));
    process.stdout.write(diff ?? done.map((line) => `${line}\n`).join(''));
    (diff === undefined ? process.stdout : process.stderr).write(`${summaryLine(report)}\n`);
  }
  // A skipped implementer is still pre-fencing: --check in CI must not pass it as done.
  return mode === 'check' && (report.changes.length > 0 || report.skipped.length > 0) ? EXIT_CHANGES_NEEDED : EXIT_OK;
}

/** A one-line progress indicator on stderr, redrawn at most every 100 ms, for runs over large trees. */
function createProgress(): { update: NonNullable<UpgradeOptions['onProgress']>; clear: () => void } {
  const verbs = { scan: 'scanning', analyse: 'analysing', write: 'writing' };
  let last: number | undefined;
  return {
    update(phase, done, total) {
      if (last === undefined || Date.now() - last >= 100 || done === total) {
        last = Date.now();
        process.stderr.write(`\r\x1b[K${verbs[phase]} ${done}/${total} files`);
      }
    },
    clear: () => last !== undefined && process.stderr.write('\r\x1b[K'),
  };
}

/** A unified diff of `changes` that `git apply` accepts in `cwd`, CRLF and a missing final newline carried through. */
function unifiedDiff(changes: readonly FileChange[], cwd: string): string {
  // From any folder of a work tree, git apply reads paths relative to its root (and skips others it takes as outside).
  const root = gitWorkTreeRoot(cwd) ?? cwd;
  return changes
    .map((change) => {
      const path = relative(root, realpathSync(change.file)).split('\\').join('/');
      const options = { context: 3, headerOptions: FILE_HEADERS_ONLY };
      const patch = createTwoFilesPatch(`a/${path}`, `b/${path}`, change.before, change.after, '', '', options);
      return `diff --git a/${path} b/${path}\n${patch}`;
    })
    .join('');
}
