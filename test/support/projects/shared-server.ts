import type { TestProject } from 'vitest/node';

/** A server a global setup started for the run: it provides its address to a project's files, and stops. */
export interface StartedSharedServer {
  /** `project.provide(...)` of the address the project's test files `inject`. */
  provideTo(project: TestProject): void;
  stop(): Promise<void>;
}

/**
 * One server shared by every project that acquires it: started by the first `acquire()`, stopped when the last of
 * them releases it. A start that fails is forgotten, so the next `acquire()` tries again.
 */
export class SharedServer {
  #server: Promise<StartedSharedServer> | undefined;
  #users = 0;

  constructor(private readonly start: () => Promise<StartedSharedServer>) {}

  async acquire(): Promise<StartedSharedServer> {
    const server = (this.#server ??= this.start());
    this.#users += 1;
    try {
      return await server;
    } catch (error) {
      this.#users -= 1;
      // Every waiter on the failed start lands here; the first may already have let a new start begin.
      if (this.#server === server) {
        this.#server = undefined;
      }
      throw error;
    }
  }

  async release(): Promise<void> {
    this.#users -= 1;
    const server = this.#server;
    if (this.#users === 0 && server !== undefined) {
      this.#server = undefined;
      await (await server).stop();
    }
  }
}
