import type { ESLintUtils, TSESLint } from '@typescript-eslint/utils';
import { RuleCreator } from '@typescript-eslint/utils/eslint-utils';
import { packageDocUrl } from '../vocabulary/index.js';

/** What a rule's `meta.docs` says beyond ESLint's own fields; the meta-tests keep it in sync with doc/rules/. */
export interface CheckpointFencingRuleDocs {
  /** Whether the rule is in `configs.recommended` (and so in `configs['recommended-type-checked']`). */
  readonly recommended: boolean;
  /** True only for a rule that cannot work at all without type information; none of ours needs it. */
  readonly requiresTypeChecking: boolean;
  /** Whether `useTypeInformation: true` makes the rule more precise; `recommended-type-checked` turns it on. */
  readonly usesTypeInformationWhenAsked: boolean;
}

/**
 * A rule of the plugin. Named here, from typescript-eslint's root entry, so the published declarations never point
 * at a subpath of `@typescript-eslint/utils` that `"moduleResolution": "node"` consumers cannot resolve.
 */
export type CheckpointFencingRule<MessageIds extends string, Options extends readonly unknown[]> = TSESLint.RuleModule<
  MessageIds,
  Options,
  CheckpointFencingRuleDocs
> & { readonly name: string };

/**
 * The URL of a rule's doc: doc/rules/ ships in the npm package, so the versioned file on unpkg is the doc for exactly
 * the installed version (see doc/adr/0303-rule-doc-urls-point-at-the-published-package.md).
 */
export function ruleDocUrl(ruleName: string): string {
  return packageDocUrl(`doc/rules/${ruleName}.md`);
}

/** Builds a rule with `meta.docs.url` pointing at its doc. */
export const createRule: <Options extends readonly unknown[], MessageIds extends string>(
  rule: Readonly<ESLintUtils.RuleWithMetaAndName<Options, MessageIds, CheckpointFencingRuleDocs>>,
) => CheckpointFencingRule<MessageIds, Options> = RuleCreator<CheckpointFencingRuleDocs>(ruleDocUrl);
