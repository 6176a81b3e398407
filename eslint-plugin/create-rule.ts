import type { ESLintUtils, TSESLint } from '@typescript-eslint/utils';
import { ESLINT_PLUGIN_PACKAGE_NAME, packageDocUrl } from '../vocabulary/index.js';
import type { CheckpointFencingRuleDocs } from './plugin-types.js';

// Types only from typescript-eslint: at run time the plugin depends on @typescript-eslint/types alone, which has no
// peer dependencies, so installing the plugin never conflicts with a project's typescript-eslint.

/**
 * A rule of the plugin as its code sees it, in typescript-eslint's types; the published declarations show each rule
 * as the structural PluginRule instead, so they need no typescript-eslint package.
 */
export type CheckpointFencingRule<MessageIds extends string, Options extends readonly unknown[]> = TSESLint.RuleModule<
  MessageIds,
  Options,
  CheckpointFencingRuleDocs
> & { readonly name: string };

/**
 * The URL of a rule's doc: doc/rules/ ships in the plugin's npm package, so the versioned file on unpkg is the doc for exactly
 * the installed version (see doc/adr/0303-rule-doc-urls-point-at-the-published-package.md).
 */
export function ruleDocUrl(ruleName: string): string {
  return packageDocUrl(ESLINT_PLUGIN_PACKAGE_NAME, `doc/rules/${ruleName}.md`);
}

/**
 * Builds a rule as typescript-eslint's `RuleCreator` does: `meta.docs.url` points at its doc, and `create` gets the
 * options with `meta.defaultOptions` filled in (each option object merged over its default; ours are flat).
 */
export function createRule<Options extends readonly unknown[], MessageIds extends string>({
  name,
  meta,
  create,
}: Readonly<ESLintUtils.RuleWithMetaAndName<Options, MessageIds, CheckpointFencingRuleDocs>>): CheckpointFencingRule<
  MessageIds,
  Options
> {
  const defaults: readonly unknown[] = meta.defaultOptions ?? [];
  return {
    name,
    meta: { ...meta, docs: { ...meta.docs, url: ruleDocUrl(name) } },
    create(context) {
      // The defaults are `meta.defaultOptions`, so each merged option has the type `Options` says it has.
      return create(context, withDefaults(defaults, context.options) as unknown as Options);
    },
  };
}

function withDefaults(defaults: readonly unknown[], given: readonly unknown[]): unknown[] {
  return defaults.map((fallback, index) => {
    const option = given[index];
    if (option === undefined) {
      return fallback;
    }
    return isPlainObject(fallback) && isPlainObject(option) ? { ...fallback, ...option } : option;
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
