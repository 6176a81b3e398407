export {
  locateBinary,
  provisionBinaries,
  ProvisioningError,
  type CommandOutcome,
  type ProvisioningHost,
} from './provision-binaries.js';
export { systemProvisioningHost } from './system-provisioning-host.js';
export {
  testProject,
  testProjectOfFile,
  testProjects,
  testProjectsWithFiles,
  type RequiredBinary,
  type SharedServerKind,
  type TestProjectDefinition,
} from './test-projects.js';
