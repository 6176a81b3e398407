import type { ChildProcess } from 'node:child_process';
import type { SoakCommand } from './soak-messages.js';

/** Faults on a worker process, the same for every backend. */
export type WorkerFaultKind = 'stall' | 'sigstop';

/**
 * Faults on the store. Redis: `client-pause`, `restart` (standalone), `node-pause` (Cluster). Sentinel:
 * `replica-pause` (SIGSTOP of the replica), `master-kill` (SIGKILL of the master, a failover), `partition-kill` (the
 * replication link cut, the lease holder stopped so the lease changes hands during the cut, then the master killed),
 * `master-pause` (SIGSTOP of the master until the Sentinels promote its replica, then SIGCONT: deposed while it lives),
 * `minority-partition` (the master, one replica and one Sentinel cut off from the rest, half the workers with them).
 * PostgreSQL: `pg-restart` (`pg_ctl restart -m immediate`), `pg-terminate` (`pg_terminate_backend` on every client
 * backend), `pg-row-lock` (the rows held locked longer than the clients' statement timeout). PostgreSQL failover:
 * `standby-hold` (the standby's link dropping every byte), `primary-kill` (SIGKILL of the primary, its standby
 * promoted), `primary-partition-kill` (the link held, the lease holder stopped, then the primary killed).
 */
export type ServerFaultKind =
  | 'client-pause'
  | 'restart'
  | 'node-pause'
  | 'replica-pause'
  | 'master-kill'
  | 'partition-kill'
  | 'master-pause'
  | 'minority-partition'
  | 'pg-restart'
  | 'pg-terminate'
  | 'pg-row-lock'
  | 'standby-hold'
  | 'primary-kill'
  | 'primary-partition-kill';

/** Every fault the soak injects. */
export type FaultKind = WorkerFaultKind | ServerFaultKind;

/** Injects one store fault and undoes it before resolving; resolves false when there was nothing to hit. */
export type ServerFault = () => Promise<boolean>;

/** What the injector can hit. `leaseHolder` names a worker that wrote a checkpoint recently: pausing a worker that holds no lease tests nothing. */
export interface FaultTargets {
  readonly leaseHolder: () => ChildProcess | undefined;
  /** The store's faults, by kind; each kind listed takes its turn with the worker faults. */
  readonly serverFaults: ReadonlyMap<ServerFaultKind, ServerFault>;
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
  /** Why a fault could not be injected or undone (a topology that never settled, say); the run has no verdict then. */
  #failure: { readonly error: unknown } | undefined;

  constructor(targets: FaultTargets) {
    this.#targets = targets;
    this.#kinds = ['stall', 'sigstop', ...targets.serverFaults.keys()];
    if (targets.firstFault !== undefined) {
      this.#bag.push(targets.firstFault);
    }
  }

  /** Total faults injected so far. */
  get total(): number {
    return [...this.counts.values()].reduce((sum, count) => sum + count, 0);
  }

  /** Whether a fault failed: injecting stopped then, and {@link stop} rejects with its error. */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  start(): void {
    this.#running = true;
    // Kept, not left to reject: a rejection nobody awaits yet would crash the process (exit 1, the code of an anomaly)
    // before stop() could report it as a run without a verdict.
    this.#loop = this.#run().catch((error: unknown) => {
      this.#failure = { error };
    });
  }

  /**
   * Stops injecting and resolves once the fault in progress has been undone; rejects with the error of a fault that
   * failed, which leaves the servers in a state the soak cannot judge.
   */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
    if (this.#failure !== undefined) {
      throw this.#failure.error;
    }
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
    const { leaseMs } = this.#targets;
    if (kind !== 'stall' && kind !== 'sigstop') {
      return (await this.#targets.serverFaults.get(kind)?.()) ?? false;
    }
    const worker = this.#targets.leaseHolder();
    if (kind === 'stall') {
      // A pause longer than the lease inside the worker: its timers and writes freeze, its process keeps running.
      const command: SoakCommand = { type: 'stall', ms: Math.round(2.5 * leaseMs) };
      return worker?.send(command) ?? false;
    }
    if (worker?.kill('SIGSTOP') !== true) {
      return false;
    }
    await sleep(2.5 * leaseMs);
    worker.kill('SIGCONT');
    return true;
  }
}
