import { ESLINT_PLUGIN_PACKAGE_NAME, PACKAGE_NAME, packageVersion } from '../vocabulary/index.js';
import type {
  CheckpointFencingPlugin,
  ConfigName,
  DisableTypeCheckedConfig,
  PluginConfig,
  PluginConfigs,
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

// The flat configs carry the plugin object and are filled in once it exists; the eslintrc ones, as typescript-eslint's
// are, name the plugin, which ESLint loads by that name: `extends: ['plugin:checkpoint-fencing/legacy-recommended']`.
const configsToFill: Record<ConfigName, PluginConfig> & Omit<PluginConfigs, ConfigName> = {
  recommended: { name: '', plugins: {}, rules: {} },
  'recommended-type-checked': { name: '', plugins: {}, rules: {} },
  'disable-type-checked': disableTypeChecked,
  'legacy-recommended': { plugins: [PLUGIN_NAMESPACE], rules: recommendedRules(false) },
  'legacy-recommended-type-checked': { plugins: [PLUGIN_NAMESPACE], rules: recommendedRules(true) },
  'legacy-disable-type-checked': { parserOptions: disableTypeChecked.languageOptions.parserOptions },
};

/**
 * The checkpoint-fencing ESLint plugin. `configs.recommended` works with any parser, syntactically;
 * `configs['recommended-type-checked']` turns on `useTypeInformation` for every rule that has it and needs
 * `languageOptions.parserOptions.projectService`; `configs['disable-type-checked']`, for files no tsconfig covers
 * (JavaScript config files), turns type information off there, so those rules run syntactically on them. The same
 * three for an `.eslintrc` are `legacy-recommended`, `legacy-recommended-type-checked` and
 * `legacy-disable-type-checked`.
 */
const plugin: CheckpointFencingPlugin = {
  meta: { name: ESLINT_PLUGIN_PACKAGE_NAME, version: packageVersion(ESLINT_PLUGIN_PACKAGE_NAME) },
  rules,
  configs: configsToFill,
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

configsToFill.recommended = {
  name: 'checkpoint-fencing/recommended',
  plugins: { [PLUGIN_NAMESPACE]: plugin },
  rules: recommendedRules(false),
};
configsToFill['recommended-type-checked'] = {
  name: 'checkpoint-fencing/recommended-type-checked',
  plugins: { [PLUGIN_NAMESPACE]: plugin },
  rules: recommendedRules(true),
};

/**
 * The plugin's configs, flat and eslintrc, as a named export too: ESLint's eslintrc loads a plugin with `require()`
 * and reads its `configs` and `rules`, which `require()` of this ES module gives as its named exports.
 */
export const configs: PluginConfigs = configsToFill;

export default plugin;
export type {
  CheckpointFencingPlugin,
  CheckpointFencingRuleDocs,
  ConfigName,
  DisableTypeCheckedConfig,
  LegacyConfigName,
  LegacyDisableTypeCheckedConfig,
  LegacyPluginConfig,
  PluginConfig,
  PluginConfigs,
  PluginRule,
  PluginRuleDocs,
  PluginRuleEntry,
  PluginRuleMeta,
  PluginRules,
  RuleName,
} from './plugin-types.js';
