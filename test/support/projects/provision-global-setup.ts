import type { TestProject } from 'vitest/node';
import { provisionBinaries } from './provision-binaries.js';
import { systemProvisioningHost } from './system-provisioning-host.js';
import { testProject } from './test-projects.js';

/**
 * vitest global setup of every project that needs binaries: installs what is missing (as root with apt-get) or fails
 * with the command to run, before any of the project's files start. vitest runs it only for projects with files in
 * the run, so `vitest run --project unit` never asks for Redis.
 */
export default async function provisionProject(project: TestProject): Promise<void> {
  await provisionBinaries([testProject(project.name)], systemProvisioningHost());
}
