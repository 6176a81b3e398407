import { ESLINT_PLUGIN_PACKAGE_NAME, PACKAGE_NAME, packageVersion } from '../vocabulary/index.js';
import type {
  CheckpointFencingPlugin,
  ConfigName,
  DisableTypeCheckedConfig,
  PluginConfig,
  PluginRule,
  PluginRuleEntry,
  RuleName,
} from './plugin-types.js';
import { rules as ruleModules } from './rules/index.js';

/** The namespace rules carry in a config: `checkpoint-fencing/no-unfenced-write`. */
const PLUGIN_NAMESPACE = PACKAGE_NAME;

/** Every rule of the plugin by its name (without the `checkpoint-fencing/` prefix). */
// typescript-eslint types a listener's node as `never` in its index signature, ESLint as `any`: neither is assignable
// to the other, though both describe the same functions. ESLint's is the one users' configs check against.
export const rules = ruleModules as Readonly<Record<RuleName, unknown>> as Readonly<Record<RuleName, PluginRule>>;

const disableTypeChecked: DisableTypeCheckedConfig = {
  name: 'checkpoint-fencing/disable-type-checked',
  // What typescript-eslint's disableTypeChecked sets: a user who applies both to JavaScript files gets one answer.
  languageOptions: { parserOptions: { program: null, project: false, projectService: false } },
};

const configs: Record<ConfigName, PluginConfig> & { 'disable-type-checked': DisableTypeCheckedConfig } = {
  recommended: { name: '', plugins: {}, rules: {} },
  'recommended-type-checked': { name: '', plugins: {}, rules: {} },
  'disable-type-checked': disableTypeChecked,
};

/**
 * The checkpoint-fencing ESLint plugin. `configs.recommended` works with any parser, syntactically;
 * `configs['recommended-type-checked']` turns on `useTypeInformation` for every rule that has it and needs
 * `languageOptions.parserOptions.projectService`; `configs['disable-type-checked']`, for files no tsconfig covers
 * (JavaScript config files), turns type information off there, so those rules run syntactically on them.
 */
const plugin: CheckpointFencingPlugin = {
  meta: { name: ESLINT_PLUGIN_PACKAGE_NAME, version: packageVersion(ESLINT_PLUGIN_PACKAGE_NAME) },
  rules,
  configs,
};

function recommendedRules(useTypeInformation: boolean): Record<string, PluginRuleEntry> {
  return Object.fromEntries(
    (Object.keys(rules) as RuleName[])
      .filter((name) => rules[name].meta.docs?.recommended === true)
      .map((name): [string, PluginRuleEntry] => [
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
export type {
  CheckpointFencingPlugin,
  CheckpointFencingRuleDocs,
  ConfigName,
  DisableTypeCheckedConfig,
  PluginConfig,
  PluginRule,
  PluginRuleDocs,
  PluginRuleEntry,
  PluginRuleMeta,
  PluginRules,
  RuleName,
} from './plugin-types.js';
