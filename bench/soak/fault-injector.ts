import type { ChildProcess } from 'node:child_process';
import type { Redis } from 'ioredis';
import type { RedisServerProcess } from '../../test/support/redis/index.js';
import type { SoakCommand } from './soak-messages.js';

/** The faults the soak injects; `restart` only on a standalone server, `node-pause` only on a Cluster. */
export type FaultKind = 'stall' | 'sigstop' | 'client-pause' | 'restart' | 'node-pause';

/**
 * What the injector can hit. `admins` holds one plain connection per server, for `CLIENT PAUSE`. `leaseHolder` names
 * a worker that wrote a checkpoint recently: pausing a worker that holds no lease tests nothing.
 */
export interface FaultTargets {
  readonly leaseHolder: () => ChildProcess | undefined;
  readonly servers: readonly RedisServerProcess[];
  readonly admins: readonly Redis[];
  readonly cluster: boolean;
  readonly leaseMs: number;
  /** Injected first; the rest come from shuffled rounds of every kind, so each kind recurs evenly. */
  readonly firstFault?: FaultKind;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Injects one fault at a time, at random intervals of one to two and a half lease times, until stopped. Every fault
 * that stops something also undoes it before the next one starts, so `stop()` leaves every process running.
 */
export class FaultInjector {
  readonly counts = new Map<FaultKind, number>();
  readonly #targets: FaultTargets;
  readonly #kinds: readonly FaultKind[];
  readonly #bag: FaultKind[] = [];
  #running = false;
  #loop: Promise<void> = Promise.resolve();

  constructor(targets: FaultTargets) {
    this.#targets = targets;
    this.#kinds = targets.cluster
      ? ['stall', 'sigstop', 'client-pause', 'node-pause']
      : ['stall', 'sigstop', 'client-pause', 'restart'];
    if (targets.firstFault !== undefined) {
      this.#bag.push(targets.firstFault);
    }
  }

  /** Total faults injected so far. */
  get total(): number {
    return [...this.counts.values()].reduce((sum, count) => sum + count, 0);
  }

  start(): void {
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Stops injecting and resolves once the fault in progress has been undone. */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }

  async #run(): Promise<void> {
    const { leaseMs } = this.#targets;
    while (this.#running) {
      await sleep(leaseMs + Math.random() * 1.5 * leaseMs);
      const kind = this.#nextKind();
      // stop() may have been called during the sleep.
      if (kind !== undefined && this.#stillRunning() && (await this.#inject(kind))) {
        this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
      }
    }
  }

  #nextKind(): FaultKind | undefined {
    if (this.#bag.length === 0) {
      const round = [...this.#kinds];
      for (let index = round.length - 1; index > 0; index -= 1) {
        const other = Math.floor(Math.random() * (index + 1));
        [round[index], round[other]] = [round[other] as FaultKind, round[index] as FaultKind];
      }
      this.#bag.push(...round);
    }
    return this.#bag.shift();
  }

  #stillRunning(): boolean {
    return this.#running;
  }

  /** Injects `kind` and undoes it; false when there was nothing to hit (a worker already gone, an admin call refused). */
  async #inject(kind: FaultKind): Promise<boolean> {
    const { servers, admins, leaseMs } = this.#targets;
    const worker = this.#targets.leaseHolder();
    switch (kind) {
      case 'stall': {
        // A pause longer than the lease inside the worker: its timers and writes freeze, its process keeps running.
        const command: SoakCommand = { type: 'stall', ms: Math.round(2.5 * leaseMs) };
        return worker?.send(command) ?? false;
      }
      case 'sigstop':
        if (worker?.kill('SIGSTOP') !== true) {
          return false;
        }
        await sleep(2.5 * leaseMs);
        worker.kill('SIGCONT');
        return true;
      case 'client-pause': {
        // Longer than the lease and than the clients' command timeout: calls time out and still run afterwards.
        const pauseMs = Math.round(2 * leaseMs);
        const paused = await pick(admins)
          ?.call('CLIENT', 'PAUSE', String(pauseMs), 'ALL')
          .then(
            () => true,
            () => false,
          );
        await sleep(pauseMs);
        return paused === true;
      }
      case 'restart': {
        // A crash (SIGKILL) and a restart: with appendfsync always, every acknowledged write must survive it.
        const server = pick(servers);
        if (server === undefined) {
          return false;
        }
        server.kill();
        await sleep(leaseMs / 2);
        await server.restart();
        return true;
      }
      case 'node-pause': {
        // SIGSTOP one master for less than cluster-node-timeout: its slots stall, no failover starts.
        const server = pick(servers);
        if (server === undefined) {
          return false;
        }
        server.pause();
        await sleep(2 * leaseMs);
        server.resume();
        return true;
      }
    }
  }
}

function pick<T>(items: readonly T[]): T | undefined {
  return items[Math.floor(Math.random() * items.length)];
}
