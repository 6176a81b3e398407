import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { withFileLock } from './file-lock.js';
import { hashOfSources } from './source-hash.js';

const REPO = resolve(import.meta.dirname, '../..');
/**
 * What `npm pack --workspaces` reads or ships: the workspace root, the four package folders, the vocabulary they
 * compile in, the build script and the rule docs. The pack sees nothing else, so an input missing here fails the pack
 * instead of going stale.
 */
const PACK_INPUTS = [
  'package.json',
  'tsconfig.base.json',
  'runtime',
  'operator',
  'eslint-plugin',
  'recipes',
  'vocabulary',
  'build',
  'doc/rules',
];

/** The tarball `npm pack` makes of one workspace package, as a user gets it from the registry. */
export interface PackedTarball {
  /** Absolute path of the `.tgz`. */
  readonly file: string;
  /** Every path in the tarball, relative to the package root (`dist/cjs/runtime/index.js`). */
  readonly files: ReadonlySet<string>;
  /** The package.json that was packed. */
  readonly manifest: PackedManifest;
}

/** The fields of the packed package.json the package tests read. */
export interface PackedManifest {
  readonly name: string;
  readonly version: string;
  readonly main?: string;
  readonly type?: string;
  readonly bin?: Readonly<Record<string, string>>;
  readonly exports: Readonly<Record<string, unknown>>;
  readonly scripts: Readonly<Record<string, string>>;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
}

/** The tarballs of one `npm pack --workspaces`, by package name. */
export type PackedTarballs = ReadonlyMap<string, PackedTarball>;

let packed: PackedTarballs | undefined;

/**
 * The tarball of package `name` (`checkpoint-fencing`, `checkpoint-fencing-cli`, `eslint-plugin-checkpoint-fencing`,
 * `checkpoint-fencing-codemod`) from this run's `npm pack --workspaces` (each `prepack` build included) of a copy
 * of the current sources, made once per change of those sources in `.tmp/tarballs-<hash>/` and shared by every test
 * file and worker. The pack runs in a copy so that its builds never rewrite this checkout's dist/ under other tests.
 */
export function packedTarball(name = 'checkpoint-fencing'): PackedTarball {
  packed ??= packOnce();
  const tarball = packed.get(name);
  if (tarball === undefined) {
    throw new Error(`npm pack --workspaces made no tarball of ${name}; it made ${[...packed.keys()].join(', ')}.`);
  }
  return tarball;
}

/** Every tarball of this run's `npm pack --workspaces`, by package name. */
export function packedTarballs(): PackedTarballs {
  packed ??= packOnce();
  return packed;
}

function packOnce(): PackedTarballs {
  const folder = join(REPO, '.tmp', `tarballs-${hashOfSources(REPO, PACK_INPUTS)}`);
  const record = join(folder, 'pack.json');
  if (!existsSync(record)) {
    mkdirSync(join(REPO, '.tmp'), { recursive: true });
    // Test files that start at once would each pack the same sources: one packs, the others wait for its tarballs.
    withFileLock(`${folder}.lock`, () => {
      if (!existsSync(record)) {
        pack(folder);
      }
    });
  }
  removeStaleTarballs(folder);
  const stored = JSON.parse(readFileSync(record, 'utf8')) as {
    name: string;
    file: string;
    files: string[];
    manifest: PackedManifest;
  }[];
  return new Map(
    stored.map((tarball) => [
      tarball.name,
      { file: tarball.file, files: new Set(tarball.files), manifest: tarball.manifest },
    ]),
  );
}

function pack(folder: string): void {
  const staging = `${folder}-staging`;
  rmSync(staging, { recursive: true, force: true });
  const source = join(staging, 'source');
  mkdirSync(source, { recursive: true });
  for (const input of PACK_INPUTS) {
    cpSync(join(REPO, input), join(source, input), {
      recursive: true,
      filter: (path) => !/[/\\](dist|node_modules)$/.test(path),
    });
  }
  symlinkSync(join(REPO, 'node_modules'), join(source, 'node_modules'), 'dir');
  const stdout = execFileSync('npm', ['pack', '--workspaces', '--json', '--pack-destination', staging], {
    cwd: source,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const tarballs = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
    name: string;
    filename: string;
    files: { path: string }[];
  }[];
  const folders = new Map(
    ['runtime', 'operator', 'eslint-plugin', 'recipes'].map((name) => {
      const manifest = JSON.parse(readFileSync(join(source, name, 'package.json'), 'utf8')) as PackedManifest;
      return [manifest.name, manifest];
    }),
  );
  writeFileSync(
    join(staging, 'pack.json'),
    JSON.stringify(
      tarballs.map((tarball) => ({
        name: tarball.name,
        file: join(folder, tarball.filename),
        files: tarball.files.map((file) => file.path),
        manifest: folders.get(tarball.name),
      })),
    ),
  );
  rmSync(source, { recursive: true, force: true });
  renameSync(staging, folder);
}

/** Tarballs of sources that have since changed, left by earlier runs; an hour old at least, so no running test uses one. */
function removeStaleTarballs(keep: string): void {
  const tmp = join(REPO, '.tmp');
  for (const entry of readdirSync(tmp)) {
    const path = join(tmp, entry);
    if (
      /^tarballs-[0-9a-f]{16}$/.test(entry) &&
      path !== keep &&
      Date.now() - statSync(path).mtimeMs > 60 * 60 * 1000
    ) {
      rmSync(path, { recursive: true, force: true });
    }
  }
}
