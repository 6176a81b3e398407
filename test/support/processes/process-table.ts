import { readdirSync, readFileSync } from 'node:fs';

// Linux's process table as /proc shows it: the test support kills a server's whole process tree, and the benchmarks
// read what a server and its children spent.

/**
 * The fields of `/proc/<pid>/stat` after the command, the state first (field 3); `undefined` once the process is gone.
 * The command is in parentheses and may hold spaces and parentheses, so the fields start after its last `)`.
 */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  return readdirSync('/proc').flatMap((entry) =>
    /^\d+$/u.test(entry) && Number(statFields(Number(entry))?.[1]) === pid ? [Number(entry)] : [],
  );
}

/**
 * CPU time, user and system, in milliseconds, of process `pid`, the children it reaped, and its live children; 0 for
 * one gone meanwhile (a PostgreSQL worker that exited: its parent counts it once it reaps it).
 */
export function cpuMs(pid: number): number {
  // utime, stime, cutime and cstime are fields 14–17, in clock ticks of 10 ms (USER_HZ is 100 on Linux).
  const ticks = (statFields(pid) ?? []).slice(11, 15).reduce((sum, field) => sum + Number(field), 0);
  return ticks * 10 + childrenOf(pid).reduce((sum, child) => sum + cpuMs(child), 0);
}
