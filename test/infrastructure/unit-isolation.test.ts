import { execFile, spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';

// This file is in the unit project, so test/support/projects/unit-isolation.ts is its setup file.
describe('the unit project', () => {
  it('refuses to start a child process, naming the project that allows it', () => {
    expect(() => spawnSync('true')).toThrow(
      /^child_process\.spawnSync\(\) was called from a unit test\. .*name the file \*\.process\.test\.ts/,
    );
    expect(() => execFile('true')).toThrow(/child_process\.execFile\(\) was called from a unit test/);
  });

  it('refuses to open a connection, naming the server projects', () => {
    expect(() => connect({ host: '127.0.0.1', port: 6379 })).toThrow(
      /^net\.Socket#connect\(\) was called from a unit test\. .*\*\.redis\.test\.ts/,
    );
  });
});
