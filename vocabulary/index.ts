export {
  DEFAULT_TOKEN_PATTERN,
  DUAL_ANCHOR_BASE_STEP_NAMES,
  DUAL_ANCHOR_PARTIAL_OPERATIONS,
  DUAL_ANCHOR_RECORD_FIELD_NAMES,
  DUAL_ANCHOR_STORE_MEMBER_NAMES,
  PACKAGE_NAME,
  RUNTIME_TYPE_EXPORTS,
  RUNTIME_VALUE_EXPORTS,
  STORAGE_MEMBER_NAMES,
  type DualAnchorBaseStep,
  type DualAnchorBaseStepName,
  type DualAnchorPartialOperation,
  type DualAnchorRecordFieldName,
  type DualAnchorStoreMemberName,
  type RuntimeExportName,
  type StorageMemberName,
} from './names.js';
export { PACKAGE_VERSION, packageDocUrl } from './package-docs.js';
