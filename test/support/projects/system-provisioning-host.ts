import { spawn } from 'node:child_process';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { delimiter } from 'node:path';
import type { CommandOutcome, ProvisioningHost } from './provision-binaries.js';

/** This machine as {@link ProvisioningHost}: its PATH, its user, its file system, real commands, stdout. */
export function systemProvisioningHost(): ProvisioningHost {
  return {
    pathDirectories: (process.env['PATH'] ?? '').split(delimiter).filter((directory) => directory !== ''),
    isRoot: process.getuid?.() === 0,
    isExecutable: (path) => {
      try {
        accessSync(path, constants.X_OK);
        return statSync(path).isFile();
      } catch {
        return false;
      }
    },
    listDirectory: (path) => {
      try {
        return readdirSync(path);
      } catch {
        return [];
      }
    },
    run: (command, args, env) =>
      new Promise<CommandOutcome>((resolve) => {
        const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        const collect = (chunk: Buffer): void => {
          output += chunk.toString();
        };
        child.stdout.on('data', collect);
        child.stderr.on('data', collect);
        child.once('error', (error) => {
          resolve({ status: null, output: `${output}${String(error)}` });
        });
        child.once('close', (status) => {
          resolve({ status, output });
        });
      }),
    print: (line) => {
      process.stdout.write(`${line}\n`);
    },
  };
}
