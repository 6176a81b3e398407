import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { childrenOf, cpuMs } from '../support/processes/process-table.js';

describe('process table', () => {
  it('lists a child by its parent, counts its CPU time in the parent’s, and counts a gone process as 0', async () => {
    // Burns CPU until killed, so that the child has spent more than a clock tick when it is read.
    const child = spawn(process.execPath, ['-e', 'for (;;) {}']);
    try {
      const pid = child.pid ?? 0;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(childrenOf(process.pid)).toContain(pid);
      const childCpu = cpuMs(pid);
      expect(childCpu).toBeGreaterThan(0);
      expect(cpuMs(process.pid)).toBeGreaterThanOrEqual(childCpu);
      child.kill('SIGKILL');
      await once(child, 'exit');
      expect(childrenOf(process.pid)).not.toContain(pid);
      expect(cpuMs(pid)).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
