export { runOperatorCommand, type OperatorEnvironment } from './run-operator-command.js';
export type { OperatorIo } from './operator-io.js';
export { operatorCommandNames, operatorUsage, type OperatorCommandName } from './operator-usage.js';
