export {
  DEFAULT_TOKEN_PATTERN,
  PACKAGE_NAME,
  RUNTIME_TYPE_EXPORTS,
  RUNTIME_VALUE_EXPORTS,
  STORAGE_MEMBER_NAMES,
  type RuntimeExportName,
  type StorageMemberName,
} from './names.js';
export { PACKAGE_VERSION, packageDocUrl } from './package-docs.js';
