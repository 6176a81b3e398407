// The text the codemod and the plugin's editor fix write (member-templates.ts, filled in the style source-style.ts reads)
// is imported by path, not from here: the runtime and the operator compile this index in and need neither.
export {
  DEFAULT_TOKEN_PATTERN,
  DUAL_ANCHOR_BASE_STEP_NAMES,
  DUAL_ANCHOR_EXPORTS,
  DUAL_ANCHOR_MODULE,
  DUAL_ANCHOR_PARTIAL_OPERATIONS,
  DUAL_ANCHOR_RECORD_FIELD_NAMES,
  DUAL_ANCHOR_STORE_MEMBER_NAMES,
  CLI_PACKAGE_NAME,
  CODEMOD_PACKAGE_NAME,
  CONDITION_TYPE,
  ESLINT_PLUGIN_PACKAGE_NAME,
  PACKAGE_NAME,
  RUNTIME_MODULES,
  RUNTIME_TYPE_EXPORTS,
  RUNTIME_VALUE_EXPORTS,
  STORAGE_MEMBER_NAMES,
  UNSUPPORTED_ERROR,
  type DualAnchorBaseStepName,
  type DualAnchorPartialOperation,
  type DualAnchorRecordFieldName,
  type DualAnchorStoreMemberName,
  type RuntimeExportName,
  type StorageMemberName,
} from './names.js';
export { packageDocUrl, packageVersion } from './package-docs.js';
