import { ESLintUtils } from '@typescript-eslint/utils';
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
 * The URL of a rule's doc: doc/rules/ ships in the npm package, so the versioned file on unpkg is the doc for exactly
 * the installed version (see doc/adr/0303-rule-doc-urls-point-at-the-published-package.md).
 */
export function ruleDocUrl(ruleName: string): string {
  return packageDocUrl(`doc/rules/${ruleName}.md`);
}

/** Builds a rule with `meta.docs.url` pointing at its doc. */
export const createRule = ESLintUtils.RuleCreator<CheckpointFencingRuleDocs>(ruleDocUrl);
