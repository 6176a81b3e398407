import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPeerDependency } from '../../operator/peer-dependency.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

const ioredis = { name: 'ioredis', majors: [5, 6], neededBy: '--redis' } as const;

/** A project with `node_modules/<name>` of `version`, whose entry exports its version. */
function projectWith(name: string, version: string): string {
  const project = temporaryDirectory('peer');
  const directory = join(project, 'node_modules', name);
  mkdirSync(join(directory, 'lib'), { recursive: true });
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ name, version, main: 'lib/index.js' }));
  // A nested package.json of another name (as "type" markers are), which must not be read as the package's.
  writeFileSync(join(directory, 'lib/package.json'), JSON.stringify({ type: 'commonjs' }));
  writeFileSync(join(directory, 'lib/index.js'), `module.exports = { loadedFrom: ${JSON.stringify(project)} };\n`);
  return project;
}

describe('loadPeerDependency', () => {
  it('loads the client of the first directory that has one: the project before the package', () => {
    const project = projectWith('ioredis', '6.0.0');
    const beside = projectWith('ioredis', '5.9.2');
    const loaded = loadPeerDependency(ioredis, [project, beside]);
    expect(loaded).toMatchObject({ module: { loadedFrom: project }, version: '6.0.0' });
    expect(loadPeerDependency(ioredis, [temporaryDirectory('empty'), beside])).toMatchObject({ version: '5.9.2' });
  });

  it('names the package and the command to install it when no directory has it', () => {
    const empty = temporaryDirectory('empty');
    expect(() => loadPeerDependency(ioredis, [empty])).toThrow(
      `--redis needs the ioredis package, which checkpoint-fencing-cli does not install (it is an optional peer dependency) ` +
        `and which is not installed in ${empty}; install it: npm install ioredis`,
    );
  });

  it('refuses a major version outside the peer range', () => {
    const project = projectWith('ioredis', '4.28.5');
    expect(() => loadPeerDependency(ioredis, [project])).toThrow(
      /^--redis needs ioredis 5 or 6, but \S+lib\/index\.js is ioredis 4\.28\.5; install a supported one: npm install ioredis@6$/u,
    );
  });
});
