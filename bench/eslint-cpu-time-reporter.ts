import { writeFileSync } from 'node:fs';

// Preloaded into each ESLint process by the overhead bench (`node --import`): on exit it writes the process's CPU
// time, which other load on a shared machine disturbs far less than wall time.
const target = process.env.BENCH_CPU_USAGE_FILE;
if (target !== undefined) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(target, JSON.stringify({ userMicroseconds: user, systemMicroseconds: system }));
  });
}
