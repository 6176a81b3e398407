import type { TSESLint } from '@typescript-eslint/utils';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../vocabulary/index.js';
import { rules, type RuleName } from './rules/index.js';

/** The namespace rules carry in a config: `checkpoint-fencing/no-unfenced-write`. */
const PLUGIN_NAMESPACE = PACKAGE_NAME;

/** The names of the plugin's flat configs. */
export type ConfigName = 'recommended' | 'recommended-type-checked';

/** The flat-config plugin: `{ meta, rules, configs }`; each config registers this same object as its plugin. */
export interface CheckpointFencingPlugin {
  readonly meta: { readonly name: string; readonly version: string };
  readonly rules: typeof rules;
  readonly configs: Readonly<Record<ConfigName, TSESLint.FlatConfig.Config>>;
}

const configs: Record<ConfigName, TSESLint.FlatConfig.Config> = { recommended: {}, 'recommended-type-checked': {} };

/**
 * The checkpoint-fencing ESLint plugin. `configs.recommended` works with any parser, syntactically;
 * `configs['recommended-type-checked']` turns on `useTypeInformation` for every rule that has it and needs
 * `languageOptions.parserOptions.projectService`.
 */
const plugin: CheckpointFencingPlugin = {
  meta: { name: `${PACKAGE_NAME}/eslint-plugin`, version: PACKAGE_VERSION },
  rules,
  configs,
};

function recommendedRules(useTypeInformation: boolean): TSESLint.FlatConfig.Rules {
  return Object.fromEntries(
    (Object.keys(rules) as RuleName[])
      .filter((name) => rules[name].meta.docs?.recommended === true)
      .map((name) => [
        `${PLUGIN_NAMESPACE}/${name}`,
        useTypeInformation && rules[name].meta.docs?.usesTypeInformationWhenAsked === true
          ? ['error', { useTypeInformation: true }]
          : 'error',
      ]),
  );
}

configs.recommended = {
  name: 'checkpoint-fencing/recommended',
  plugins: { [PLUGIN_NAMESPACE]: plugin },
  rules: recommendedRules(false),
};
configs['recommended-type-checked'] = {
  name: 'checkpoint-fencing/recommended-type-checked',
  plugins: { [PLUGIN_NAMESPACE]: plugin },
  rules: recommendedRules(true),
};

export default plugin;
export { rules, type RuleName };
