// The plugin's public types, written out structurally instead of taken from typescript-eslint or ESLint: the
// published declarations then need no package the project may lack (@typescript-eslint/utils is no dependency), and
// they are assignable to the config types users write against — ESLint 9 and 10's `defineConfig` and `Linter.Config`,
// typescript-eslint's `config()` (doc/adr/0704).

/** The names of the plugin's rules, without the `checkpoint-fencing/` prefix. */
export type RuleName =
  | 'no-unfenced-write'
  | 'no-ignored-write-condition'
  | 'no-retry-after-refusal'
  | 'no-token-without-write'
  | 'no-cached-fencing-token'
  | 'no-check-then-write'
  | 'no-read-modify-write-anchor'
  | 'require-upsert-in-anchor-write'
  | 'no-unguarded-history-reset'
  | 'no-split-anchor-heartbeat';

/** The names of the plugin's flat configs that turn its rules on. */
export type ConfigName = 'recommended' | 'recommended-type-checked';

/** The names of the plugin's eslintrc configs that turn its rules on: `plugin:checkpoint-fencing/<name>`. */
export type LegacyConfigName = 'legacy-recommended' | 'legacy-recommended-type-checked';

/** What a rule's `meta.docs` says beyond ESLint's own fields; the meta-tests keep it in sync with doc/rules/. */
export interface CheckpointFencingRuleDocs {
  /** Whether the rule is in `configs.recommended` (and so in `configs['recommended-type-checked']`). */
  readonly recommended: boolean;
  /** True only for a rule that cannot work at all without type information; none of ours needs it. */
  readonly requiresTypeChecking: boolean;
  /** Whether `useTypeInformation: true` makes the rule more precise; `recommended-type-checked` turns it on. */
  readonly usesTypeInformationWhenAsked: boolean;
}

/** A rule's `meta.docs`: ESLint's fields and ours. */
export interface PluginRuleDocs extends CheckpointFencingRuleDocs {
  readonly description: string;
  readonly url?: string;
}

/** A rule's `meta` as ESLint reads it. */
export interface PluginRuleMeta {
  readonly type: 'problem' | 'suggestion' | 'layout';
  readonly docs?: PluginRuleDocs;
  readonly messages: Readonly<Record<string, string>>;
  readonly fixable?: 'code' | 'whitespace';
  readonly hasSuggestions?: boolean;
  /** The JSON schema of the rule's options. */
  readonly schema: object;
  /** The options a rule runs with where a config gives none. */
  readonly defaultOptions?: unknown[];
}

/** A rule as ESLint runs it. */
export interface PluginRule {
  readonly meta: PluginRuleMeta;
  // A method, so that ESLint's own RuleContext of any version is accepted for `context`; listeners take `any` because
  // that is what ESLint's RuleVisitor declares, and a narrower node type would not be assignable to it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  create(context: unknown): { readonly [selector: string]: ((...args: any[]) => void) | undefined };
}

/** The severity and options the configs give a rule. */
export type PluginRuleEntry = 'error' | ['error', { useTypeInformation: boolean }];

/**
 * The plugin as a config's `plugins` names it: meta and rules. Its configs are left out on purpose, as
 * typescript-eslint's `CompatiblePlugin` leaves them out: a config naming a plugin that holds that config again is a
 * cycle the compiler cannot match against ESLint's `Plugin` type.
 */
export interface PluginRules {
  readonly meta: { readonly name: string; readonly version: string };
  readonly rules: Readonly<Record<RuleName, PluginRule>>;
}

/** One of the plugin's flat configs: registers the plugin under `checkpoint-fencing` and turns its rules on. */
export interface PluginConfig {
  readonly name: string;
  readonly plugins: { readonly [namespace: string]: PluginRules };
  readonly rules: { readonly [rule: string]: PluginRuleEntry };
}

/**
 * `configs['disable-type-checked']`: the parser options of typescript-eslint's `disableTypeChecked`, which turn type
 * information off for the files it applies to; there the rules asked for `useTypeInformation` run syntactically,
 * keeping the severity and options given to them (doc/adr/0306).
 */
export interface DisableTypeCheckedConfig {
  readonly name: string;
  readonly languageOptions: {
    readonly parserOptions: { readonly program: null; readonly project: false; readonly projectService: false };
  };
}

/** One of the plugin's eslintrc configs that turn rules on: names the plugin, as an `.eslintrc` does, and its rules. */
export interface LegacyPluginConfig {
  // Mutable, as ESLint's LegacyConfigObject declares it: a readonly array would not be assignable to it.
  readonly plugins: string[];
  readonly rules: { readonly [rule: string]: PluginRuleEntry };
}

/** `configs['legacy-disable-type-checked']`: {@link DisableTypeCheckedConfig}'s parser options, for an `.eslintrc`. */
export interface LegacyDisableTypeCheckedConfig {
  readonly parserOptions: DisableTypeCheckedConfig['languageOptions']['parserOptions'];
}

/** Every config of the plugin: the flat ones by their names, the eslintrc ones by `legacy-` and theirs. */
export type PluginConfigs = Readonly<Record<ConfigName, PluginConfig>> &
  Readonly<Record<LegacyConfigName, LegacyPluginConfig>> & {
    readonly 'disable-type-checked': DisableTypeCheckedConfig;
    readonly 'legacy-disable-type-checked': LegacyDisableTypeCheckedConfig;
  };

/**
 * The plugin: `{ meta, rules, configs }`. Each flat config that turns rules on registers this same object as its
 * plugin; the eslintrc configs name it, `checkpoint-fencing`, and ESLint loads it by that name.
 */
export interface CheckpointFencingPlugin extends PluginRules {
  readonly configs: PluginConfigs;
}
