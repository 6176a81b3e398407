export { upgrade, UpgradeError, type UpgradeOptions } from './add-write-conditions/upgrade.js';
export * from './add-write-conditions/upgrade-report.js';
export type { SaveShape } from './add-write-conditions/upgrade-data.js';
