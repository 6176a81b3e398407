import { readFileSync } from 'node:fs';
import path from 'node:path';
import tseslintPlugin from '@typescript-eslint/eslint-plugin';
import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ruleDocUrl } from '../../eslint-plugin/create-rule.js';
import plugin, { configs, rules, type RuleName } from '../../eslint-plugin/index.js';
import { codeBlocks, docSections, documentedRuleNames, ruleDoc } from './rule-docs.js';

const ruleNames = Object.keys(rules).sort() as RuleName[];
const requiredSections = ['What it catches', 'Why', 'Wrong', 'Right', 'Options', 'Syntactic and type-aware modes'];
const packageJson = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../../eslint-plugin/package.json'), 'utf8'),
) as {
  name: string;
  version: string;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const readme = readFileSync(path.resolve(import.meta.dirname, '../../eslint-plugin/README.md'), 'utf8');

/** The rules `useTypeInformation` makes more precise: the ones a file without type information concerns. */
const typeAwareRuleNames = ruleNames.filter((name) => rules[name].meta.docs?.usesTypeInformationWhenAsked === true);

/**
 * The messages of the plugin's configs (applied in order) on `code`, parsed by typescript-eslint's parser without a
 * program, as a JavaScript file no tsconfig covers is.
 */
function lintWithoutProgram(code: string, configs: readonly object[]): string[] {
  const messages = new Linter().verify(
    code,
    [{ files: ['**/*.ts'], languageOptions: { parser: tsParser } }, ...(configs as Linter.Config[])],
    'example.ts',
  );
  expect(messages.filter((message) => message.fatal === true)).toEqual([]);
  return messages.map((message) => `${String(message.ruleId)} ${message.line}:${message.column}`);
}

/** The option names a rule's schema declares. */
function optionNames(name: RuleName): string[] {
  const [schema] = rules[name].meta.schema as readonly { properties?: Record<string, unknown> }[];
  return Object.keys(schema?.properties ?? {}).sort();
}

describe('rules, docs and configs stay in sync', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('every rule has a doc and every doc a rule', () => {
    expect(documentedRuleNames()).toEqual(ruleNames);
  });

  it.each(ruleNames)('%s: docs.url points at doc/rules/<rule>.md of this version', (name) => {
    expect(rules[name].meta.docs?.url).toBe(ruleDocUrl(name));
    expect(rules[name].meta.docs?.url).toBe(
      `https://unpkg.com/eslint-plugin-checkpoint-fencing@${packageJson.version}/doc/rules/${name}.md`,
    );
  });

  it.each(ruleNames)('%s: the doc has its title, description and every section', (name) => {
    const doc = ruleDoc(name);
    expect(
      doc.startsWith(`# checkpoint-fencing/${name}\n\n> ${rules[name].meta.docs?.description ?? '(no description)'}\n`),
    ).toBe(true);
    expect([...docSections(doc).keys()].filter((heading) => requiredSections.includes(heading))).toEqual(
      requiredSections,
    );
  });

  it.each(ruleNames)('%s: the doc lists every option with its default, and no other', (name) => {
    const options = docSections(ruleDoc(name)).get('Options') ?? '';
    const documented = [...options.matchAll(/^\|\s*`(\w+)`\s*\|\s*`([^`]*)`\s*\|/gmu)].map((match) => [
      match[1],
      match[2],
    ]);
    const defaults = (rules[name].meta.defaultOptions?.[0] ?? {}) as Record<string, unknown>;
    expect(documented.map(([option]) => option).sort()).toEqual(optionNames(name));
    for (const [option, shown] of documented) {
      expect(JSON.parse((shown ?? '').replaceAll('\\|', '|'))).toEqual(defaults[option ?? '']);
    }
    if (optionNames(name).length === 0) {
      expect(options.trim()).toBe('None.');
    }
  });

  it.each(ruleNames)(
    '%s: a useTypeInformation option exactly when the rule says types make it more precise',
    (name) => {
      const docs = rules[name].meta.docs;
      expect(optionNames(name).includes('useTypeInformation')).toBe(docs?.usesTypeInformationWhenAsked);
      expect(docs?.requiresTypeChecking).toBe(false);
      const modes = docSections(ruleDoc(name)).get('Syntactic and type-aware modes') ?? '';
      expect(modes.includes('useTypeInformation: true')).toBe(docs?.usesTypeInformationWhenAsked);
      expect(modes.includes("configs['disable-type-checked']")).toBe(docs?.usesTypeInformationWhenAsked);
    },
  );

  it("the plugin's README lists every rule with a link to its doc", () => {
    const listed = [
      ...readme.matchAll(
        /^\| \[`([\w-]+)`\]\(https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/blob\/main\/doc\/rules\/([\w-]+)\.md\)/gmu,
      ),
    ].map(([, name, file]) => {
      expect(file).toBe(name);
      return name;
    });
    expect(listed.sort()).toEqual(ruleNames);
  });

  it('configs.recommended turns on every recommended rule, none needing type information, and every rule is recommended', () => {
    expect(ruleNames.filter((name) => rules[name].meta.docs?.recommended !== true)).toEqual([]);
    expect(plugin.configs.recommended.rules).toEqual(
      Object.fromEntries(ruleNames.map((name) => [`checkpoint-fencing/${name}`, 'error'])),
    );
    expect(
      ruleNames.every((name) =>
        ruleDoc(name).includes("In `configs.recommended` and `configs['recommended-type-checked']`."),
      ),
    ).toBe(true);
  });

  it("configs['recommended-type-checked'] is recommended with useTypeInformation turned on where a rule has it", () => {
    expect(plugin.configs['recommended-type-checked'].rules).toEqual(
      Object.fromEntries(
        ruleNames.map((name) => [
          `checkpoint-fencing/${name}`,
          rules[name].meta.docs?.usesTypeInformationWhenAsked === true
            ? ['error', { useTypeInformation: true }]
            : 'error',
        ]),
      ),
    );
  });

  it('the plugin object carries its package name and version, and both configs register that same object', () => {
    expect(plugin.meta).toEqual({ name: 'eslint-plugin-checkpoint-fencing', version: packageJson.version });
    expect(plugin.configs.recommended.plugins['checkpoint-fencing']).toBe(plugin);
    expect(plugin.configs['recommended-type-checked'].plugins['checkpoint-fencing']).toBe(plugin);
  });

  it("configs['disable-type-checked'] turns type information off exactly as typescript-eslint's disableTypeChecked does, and touches no rule", () => {
    expect(Object.keys(plugin.configs).sort()).toEqual([
      'disable-type-checked',
      'legacy-disable-type-checked',
      'legacy-recommended',
      'legacy-recommended-type-checked',
      'recommended',
      'recommended-type-checked',
    ]);
    expect(plugin.configs['disable-type-checked']).toEqual({
      name: 'checkpoint-fencing/disable-type-checked',
      languageOptions: {
        parserOptions: (tseslint.configs.disableTypeChecked as Linter.Config).languageOptions?.parserOptions,
      },
    });
  });

  it('the eslintrc configs name the plugin and turn on what the flat ones do; legacy-disable-type-checked sets what typescript-eslint’s does', () => {
    expect(plugin.configs['legacy-recommended']).toEqual({
      plugins: ['checkpoint-fencing'],
      rules: plugin.configs.recommended.rules,
    });
    expect(plugin.configs['legacy-recommended-type-checked']).toEqual({
      plugins: ['checkpoint-fencing'],
      rules: plugin.configs['recommended-type-checked'].rules,
    });
    expect(plugin.configs['legacy-disable-type-checked']).toEqual({
      parserOptions: tseslintPlugin.configs['disable-type-checked']?.parserOptions,
    });
    // ESLint's eslintrc loads a plugin with require() and reads `configs` and `rules` off what it returns.
    expect(configs).toBe(plugin.configs);
  });

  it("the plugin's README lists every config, flat and eslintrc, in its configs table", () => {
    const table = readme.slice(readme.indexOf('## Configs'), readme.indexOf('## Type-aware mode'));
    const flat = [...table.matchAll(/^\| `configs(?:\.([\w-]+)|\['([\w-]+)'\])`/gmu)].map(
      ([, dotted, quoted]) => dotted ?? quoted,
    );
    const legacy = [...table.matchAll(/`plugin:checkpoint-fencing\/([\w-]+)`/gu)].map(([, name]) => name);
    expect([...flat, ...legacy].sort()).toEqual(Object.keys(plugin.configs).sort());
  });

  it("the plugin's README states the peer ranges of its package.json, and which are optional", () => {
    const rows = [...readme.matchAll(/^\| `([@\w/-]+)`( \(optional\))? *\| `([^`]+)`/gmu)].map(
      ([, name, optional, range]) => [name, { range: range?.replaceAll('\\|', '|'), optional: optional !== undefined }],
    );
    expect(Object.fromEntries(rows)).toEqual(
      Object.fromEntries(
        Object.entries(packageJson.peerDependencies).map(([name, range]) => [
          name,
          { range, optional: packageJson.peerDependenciesMeta[name]?.optional === true },
        ]),
      ),
    );
  });

  const wrongExamples = typeAwareRuleNames.flatMap((name) =>
    codeBlocks(docSections(ruleDoc(name)).get('Wrong') ?? '').map((code, index) => ({ name, index, code })),
  );

  // In a single run (CI=true, or the eslint binary) typescript-eslint hands a file it parses again an isolated program,
  // even where the options turn types off; each example is linted several times, so both ways are exercised.
  it.for(wrongExamples.flatMap((example) => ['false', 'true'].map((singleRun) => ({ ...example, singleRun }))))(
    "$name: after configs['disable-type-checked'], the type-checked config reports wrong example $index syntactically (TSESTREE_SINGLE_RUN=$singleRun)",
    ({ code, singleRun }) => {
      vi.stubEnv('TSESTREE_SINGLE_RUN', singleRun);
      const syntactic = lintWithoutProgram(code, [plugin.configs.recommended]);
      expect(syntactic.length).toBeGreaterThan(0);
      expect(
        lintWithoutProgram(code, [plugin.configs['recommended-type-checked'], plugin.configs['disable-type-checked']]),
      ).toEqual(syntactic);
      // typescript-eslint's own disableTypeChecked sets the same parser options, so it serves as well.
      expect(
        lintWithoutProgram(code, [
          plugin.configs['recommended-type-checked'],
          tseslint.configs.disableTypeChecked as Linter.Config,
        ]),
      ).toEqual(syntactic);
    },
  );

  // A partially typed repository (typed src/**, untyped scripts): a file without types is linted as the
  // syntactic config would, whatever turned them off or merely left them out.
  it.for(wrongExamples)(
    '$name: on a file parsed without type information that nothing turned off, reports wrong example $index syntactically',
    ({ code }) => {
      const syntactic = lintWithoutProgram(code, [plugin.configs.recommended]);
      expect(syntactic.length).toBeGreaterThan(0);
      expect(lintWithoutProgram(code, [plugin.configs['recommended-type-checked']])).toEqual(syntactic);
    },
  );
});
