import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ts } from './typescript.js';
import { uncommittedFiles } from './git-worktree.js';
import { membersAdded } from './member-edits.js';
import { decideUpgrades, refusalsForPartialRun } from './shape-decision.js';
import { openTypedProject } from './typed-project.js';
import { projectTools } from './project-tools.js';
import { upgradeFileText } from './upgrade-file-text.js';
import { NEVER_TOUCHED } from './upgrade-data.js';
import { upgradeMessages } from './upgrade-messages.js';
import { enclosingWorkspace } from './workspace-layout.js';
import type { FileChange, ImplementerReport, SkippedImplementer, UpgradeReport } from './upgrade-report.js';

/** Options of {@link upgrade}. */
export interface UpgradeOptions {
  /** Files or directories to upgrade, relative to `cwd`; the whole project (in a workspace's package, `cwd`) by default. */
  readonly paths?: readonly string[];
  /** The tsconfig that defines the project, relative to `cwd`; by default a workspace's, else the nearest `tsconfig.json`. */
  readonly project?: string;
  /** The directory paths are relative to; the process's working directory by default. */
  readonly cwd?: string;
  /** `write` (the default) changes files; `dry-run` and `check` only report what would change. */
  readonly mode?: 'write' | 'dry-run' | 'check';
  /** Write even when files the recipe would touch have uncommitted changes in git. */
  readonly allowDirty?: boolean;
  /** Apply the project's own ESLint fixes to the lines the upgrade writes (the default), never to any other line. */
  readonly lintFix?: boolean;
  /** Called as files are scanned and analysed, for a progress indicator. */
  readonly onProgress?: (phase: 'scan' | 'analyse' | 'write', done: number, total: number) => void;
}

/** A refusal or a failure the caller can show as one line; the CLI exits 2 on it. */
export class UpgradeError extends Error {
  override readonly name = 'UpgradeError';
}

/** JavaScript files are in a project's file names only under `allowJs`, as the project compiles them. */
const UPGRADABLE = /\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const BOM = '\uFEFF';

/**
 * Runs the add-write-conditions recipe over a TypeScript project: analyses every file first, then writes the missing
 * three-parameter `save` and `writeVersion` of each `CheckpointStorage` (or, in `dry-run` and `check`, reports them).
 * @throws UpgradeError with a one-line message naming the file, for a missing tsconfig, a path outside the project,
 * a file that does not parse, or uncommitted changes in files it would write (unless `allowDirty`).
 */
export async function upgrade(options: UpgradeOptions = {}): Promise<UpgradeReport> {
  const started = performance.now();
  const cwd = resolve(options.cwd ?? process.cwd());
  const notices: string[] = [];
  const { tsconfigs, scope = [] } =
    options.project === undefined ? projectTsconfigs(cwd, notices) : { tsconfigs: [resolve(cwd, options.project)] };
  const project = asUpgradeError(() => openTypedProject(tsconfigs, notices));
  const upgradable = project.fileNames.filter(
    (file) => UPGRADABLE.test(file) && !NEVER_TOUCHED.test(relative(project.rootOf(file), file)),
  );
  const paths = options.paths?.length ? options.paths.map((path) => resolve(cwd, path)) : scope;
  const selected = selectFiles(upgradable, paths, tsconfigs.length === 1 ? (tsconfigs[0] ?? cwd) : cwd);
  const inRun = new Set(selected);

  // A run over some paths still reads the whole project: a class hierarchy may reach outside the paths, and one
  // side of it must not change without the other.
  const texts = new Map<string, string>();
  for (const [index, file] of upgradable.entries()) {
    texts.set(file, readFileSync(file, 'utf8'));
    options.onProgress?.('scan', index + 1, upgradable.length);
  }
  const reaching = project.filesReaching(texts);
  options.onProgress?.('analyse', 0, reaching.length);
  const analysed = asUpgradeError(() => project.analyse(reaching));
  options.onProgress?.('analyse', reaching.length, reaching.length);

  const everyImplementer = analysed.flatMap((file) => file.implementers);
  const isInRun = (implementer: { readonly file: string }): boolean => inRun.has(resolve(implementer.file));
  const decisions = decideUpgrades(
    everyImplementer,
    paths.length === 0 ? new Map() : refusalsForPartialRun(everyImplementer, isInRun),
  );
  const facts = analysed.filter((file) => inRun.has(resolve(file.path)));
  const implementers: ImplementerReport[] = [];
  const skipped: SkippedImplementer[] = [];
  const changes: FileChange[] = [];
  const finish = projectTools(cwd, options.lintFix !== false);
  for (const file of facts) {
    const own = decisions.filter((decision) => decision.implementer.file === file.path);
    for (const decision of own) {
      const { file, name, line, kind } = decision.implementer;
      if (decision.skipReason !== undefined) {
        skipped.push({ file, class: name, line, reason: decision.skipReason });
      } else {
        const { saveShape: shape, unconditionalSaveName: unconditionalSaveRenamedTo } = decision;
        const added = membersAdded(decision);
        implementers.push({ file, class: name, line, kind, shape, membersAdded: added, unconditionalSaveRenamedTo });
      }
    }
    const upgraded = upgradeFileText(file, own);
    if (upgraded.text !== file.text) {
      const raw = texts.get(file.path) ?? readFileSync(file.path, 'utf8');
      const bom = raw.startsWith(BOM) ? BOM : '';
      if (bom + file.text !== raw) {
        throw new UpgradeError(upgradeMessages.changedOnDisk(file.path));
      }
      const { text, lintFixes } = await finish(file.path, file.text, upgraded, notices);
      changes.push({ file: file.path, before: raw, after: bom + text, ...(lintFixes.length > 0 ? { lintFixes } : {}) });
    }
  }

  const mode = options.mode ?? 'write';
  if (mode === 'write' && changes.length > 0) {
    const dirty =
      options.allowDirty === true ? [] : asUpgradeError(() => uncommittedFiles(changes.map(({ file }) => file)));
    if (dirty.length > 0) {
      throw new UpgradeError(upgradeMessages.uncommittedChanges(dirty[0] ?? '', dirty.length - 1));
    }
    for (const [index, change] of changes.entries()) {
      writeFileSync(change.file, change.after);
      options.onProgress?.('write', index + 1, changes.length);
    }
  }
  return {
    filesScanned: selected.length,
    filesAnalysed: facts.length,
    implementers,
    skipped,
    changes,
    written: mode === 'write',
    notices,
    durationMs: performance.now() - started,
  };
}

/** The files of `candidates` that are one of `paths` or lie in one; every path must exist and select a file. */
function selectFiles(candidates: readonly string[], paths: readonly string[], project: string): string[] {
  const missing = paths.find((path) => !existsSync(path));
  if (missing !== undefined) {
    throw new UpgradeError(upgradeMessages.noSuchPath(missing));
  }
  const within = (file: string, path: string): boolean => {
    const inside = relative(path, file);
    return !/^\.\.(?:[\\/]|$)/.test(inside) && !isAbsolute(inside);
  };
  const unmatched = paths.find((path) => !candidates.some((file) => within(file, path)));
  if (unmatched !== undefined) {
    throw new UpgradeError(upgradeMessages.pathOutsideProject(unmatched, project));
  }
  return candidates.filter((file) => paths.length === 0 || paths.some((path) => within(file, path)));
}

/**
 * In a workspace, the tsconfig.json of its root (if any) and of every package, and from below its root, the current
 * folder as the scope (so that class hierarchies across packages are seen whole); elsewhere the `tsconfig.json` in
 * `cwd` or the nearest folder above, as `tsc` finds it, one above named in a notice.
 */
function projectTsconfigs(cwd: string, notices: string[]): { tsconfigs: string[]; scope?: string[] } {
  const workspace = enclosingWorkspace(cwd);
  const folders = workspace === undefined ? [] : [workspace.root, ...workspace.packages];
  const tsconfigs = folders.map((folder) => join(folder, 'tsconfig.json')).filter((path) => existsSync(path));
  if (tsconfigs.length > 0) {
    return { tsconfigs, scope: workspace?.root === cwd ? [] : [cwd] };
  }
  const found = ts.findConfigFile(cwd, (path) => ts.sys.fileExists(path));
  if (found === undefined) {
    throw new UpgradeError(upgradeMessages.noTsconfigAbove(cwd));
  }
  const tsconfig = resolve(found);
  if (dirname(tsconfig) !== cwd) {
    notices.push(upgradeMessages.tsconfigFoundAbove(tsconfig));
  }
  return { tsconfigs: [tsconfig] };
}

/** Runs `step`, turning what it throws (an expected failure, stated in one line) into an {@link UpgradeError}. */
function asUpgradeError<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    throw new UpgradeError(error instanceof Error ? error.message : String(error));
  }
}
