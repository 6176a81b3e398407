import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownLinks } from '../support/markdown.js';
import { workspaceFolders } from '../support/workspace-packages.js';

// npm shows a package's README on its page and in node_modules, without the repository around it: a relative link
// to ../doc/… leads nowhere there. A package README links files of its own package by relative paths (they ship with
// it), and everything else by absolute URL; a link into this repository names a file and a heading that exist.

const REPOSITORY = resolve(import.meta.dirname, '../..');

interface Manifest {
  readonly files?: readonly string[];
  readonly repository?: { readonly type?: string; readonly url?: string; readonly directory?: string };
}

function manifest(folder: string): Manifest {
  return JSON.parse(readFileSync(join(REPOSITORY, folder, 'package.json'), 'utf8')) as Manifest;
}

/** The repository's web address, from the root package.json: `https://github.com/<owner>/<name>`. */
const repositoryUrl = (manifest('.').repository?.url ?? '').replace(/^git\+/u, '').replace(/\.git$/u, '');
/** Files npm packs whatever `files` says. */
const ALWAYS_PACKED = new Set(['package.json', 'README.md', 'LICENSE']);
const folders = workspaceFolders(REPOSITORY);

/** The anchors GitHub gives a Markdown file's headings. */
function headingAnchors(markdown: string): Set<string> {
  return new Set(
    [...markdown.matchAll(/^#{1,6} +(.+?) *#*$/gmu)].map((match) =>
      (match[1] ?? '')
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/gu, '-'),
    ),
  );
}

/** What is wrong with a README's `link`, or `undefined`: `folder` is the package's folder. */
function brokenLink(folder: string, link: string): string | undefined {
  const [target = '', anchor] = link.split('#');
  if (/^[a-z][a-z+.-]*:/iu.test(target)) {
    if (!target.startsWith(`${repositoryUrl}/`)) {
      return target.includes('github.com') ? `a GitHub link outside ${repositoryUrl}` : undefined;
    }
    const path = /^\/(?:blob|tree)\/main\/(.+)$/u.exec(target.slice(repositoryUrl.length))?.[1];
    if (path === undefined) {
      return `not ${repositoryUrl}/blob/main/<path>`;
    }
    const file = join(REPOSITORY, path);
    if (!existsSync(file)) {
      return `${path} does not exist`;
    }
    return anchor !== undefined && path.endsWith('.md') && !headingAnchors(readFileSync(file, 'utf8')).has(anchor)
      ? `${path} has no heading #${anchor}`
      : undefined;
  }
  if (target === '') {
    return undefined;
  }
  const inside = relative(join(REPOSITORY, folder), resolve(REPOSITORY, folder, target));
  if (inside.startsWith('..')) {
    return `a relative link out of ${folder}/, which npm cannot follow: link ${repositoryUrl}/blob/main/… instead`;
  }
  const top = inside.split(sep)[0] ?? '';
  return ALWAYS_PACKED.has(top) || (manifest(folder).files ?? []).includes(top)
    ? undefined
    : `${inside} is not in the package's "files"`;
}

describe('package READMEs: every link works where npm shows the README', () => {
  it('every package.json names one repository, with its folder as the directory', () => {
    expect(repositoryUrl).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/u);
    for (const folder of folders) {
      expect(manifest(folder).repository, folder).toEqual({
        type: 'git',
        url: `git+${repositoryUrl}.git`,
        directory: folder,
      });
    }
  });

  it.each(folders)('%s/README.md', (folder) => {
    const links = markdownLinks(readFileSync(join(REPOSITORY, folder, 'README.md'), 'utf8'));
    expect(links.length).toBeGreaterThan(0);
    const broken = links.flatMap((link) => {
      const problem = brokenLink(folder, link);
      return problem === undefined ? [] : [`${link}: ${problem}`];
    });
    expect(broken).toEqual([]);
  });
});
