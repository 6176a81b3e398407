import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Orders the test files of all projects as one queue: failed last time first, then the longest last time, then the
 * files vitest has no time for, largest first. vitest's own order runs the projects one after another, by name, so
 * the 25-second lease suite of the `redis` project would start after every `cluster` file and the run would end
 * on it alone; longest first packs the files onto the workers with the least idle time at the end.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const keyed = files.map((spec) => {
      const key = `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`;
      const last = this.ctx.cache.getFileTestResults(key);
      return {
        spec,
        failed: last?.failed === true,
        duration: last?.duration ?? Number.POSITIVE_INFINITY,
        size: this.ctx.cache.getFileStats(key)?.size ?? 0,
      };
    });
    keyed.sort(
      (a, b) =>
        Number(b.failed) - Number(a.failed) ||
        (a.duration === b.duration ? 0 : a.duration < b.duration ? 1 : -1) ||
        b.size - a.size,
    );
    return Promise.resolve(keyed.map(({ spec }) => spec));
  }
}
