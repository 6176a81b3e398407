import type { RedisCheckpointClient, RedisCheckpointPipeline } from './redis-checkpoint-client.js';

/** One command the storage sends, by the client method that sends it. */
type Command =
  | { readonly method: 'get'; readonly key: string }
  | { readonly method: 'set'; readonly key: string; readonly value: string }
  | { readonly method: 'del'; readonly keys: readonly string[] }
  | {
      readonly method: 'evalsha';
      readonly sha1: string;
      readonly numkeys: number;
      readonly keysAndArgs: readonly string[];
    }
  | {
      readonly method: 'eval';
      readonly script: string;
      readonly numkeys: number;
      readonly keysAndArgs: readonly string[];
    };

/** A `WAIT` to send after a write on the write's own connection: `WAIT replicas timeoutMs`. */
export interface ReplicaWait {
  readonly replicas: number;
  readonly timeoutMs: number;
}

/** A write's reply, and what the `WAIT` sent after it on the same connection answered. */
export interface WaitedReply {
  readonly reply: unknown;
  /** How many replicas acknowledged every write sent before the `WAIT`; `undefined` when `WAIT` failed. */
  readonly acknowledged: number | undefined;
  /** Why `WAIT` failed, when it did. */
  readonly waitError?: unknown;
}

interface Queued {
  readonly command: Command;
  /** Set for a write that must be followed by a `WAIT`; it then resolves to a {@link WaitedReply}. */
  readonly wait: ReplicaWait | undefined;
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Sends the storage's commands. On a standalone server whose client has `pipeline()`, the commands the storage is
 * asked for in one tick go out as one pipeline, in the order they were asked for (ADR 0103): under many concurrent
 * writes one socket write carries many scripts, which is what makes a fenced write cost about what a plain `SET`
 * costs. A tick with one command sends it on its own; a Cluster client sends every command on its own (a pipeline
 * there must stay within one node, and redirections would apply to all of it).
 *
 * A write that waits for replicas goes out with a `WAIT` behind it on its connection: one `WAIT` at the end of the
 * tick's pipeline answers for every write before it (it counts the replicas that have the connection's last write,
 * and replication keeps order), so the writes of one tick share one wait (ADR 1101). A waiting write alone, or on a
 * Cluster, goes out as a pipeline of itself and its `WAIT`, routed by the write's keys to the master that runs it.
 */
export class RedisCommandBatcher {
  readonly #client: RedisCheckpointClient;
  /** Whether commands of one tick may share a pipeline: the client has one and is not a Cluster. */
  readonly #batching: boolean;
  #queue: Queued[] = [];

  constructor(client: RedisCheckpointClient) {
    this.#client = client;
    this.#batching = client.isCluster !== true && typeof client.pipeline === 'function';
  }

  get(key: string): Promise<string | null> {
    return this.#send({ method: 'get', key }, undefined) as Promise<string | null>;
  }

  set(key: string, value: string): Promise<unknown> {
    return this.#send({ method: 'set', key, value }, undefined);
  }

  del(...keys: string[]): Promise<unknown> {
    return this.#send({ method: 'del', keys }, undefined);
  }

  /** `EVALSHA`; with `batchable` false (a script not yet known to be loaded) always on its own. */
  evalsha(sha1: string, numkeys: number, keysAndArgs: readonly string[], batchable: boolean): Promise<unknown> {
    const command: Command = { method: 'evalsha', sha1, numkeys, keysAndArgs };
    return batchable ? this.#send(command, undefined) : this.#direct(command, undefined);
  }

  /** `EVALSHA` of a script known to be loaded, followed by `WAIT` on the same connection; batched like {@link evalsha}. */
  evalshaWaited(
    sha1: string,
    numkeys: number,
    keysAndArgs: readonly string[],
    wait: ReplicaWait,
  ): Promise<WaitedReply> {
    return this.#send({ method: 'evalsha', sha1, numkeys, keysAndArgs }, wait) as Promise<WaitedReply>;
  }

  /** `EVAL` (a script not known to be loaded) followed by `WAIT` on the same connection, on its own. */
  evalWaited(script: string, numkeys: number, keysAndArgs: readonly string[], wait: ReplicaWait): Promise<WaitedReply> {
    return this.#direct({ method: 'eval', script, numkeys, keysAndArgs }, wait) as Promise<WaitedReply>;
  }

  #send(command: Command, wait: ReplicaWait | undefined): Promise<unknown> {
    if (!this.#batching) {
      return this.#direct(command, wait);
    }
    return new Promise((resolve, reject) => {
      if (this.#queue.length === 0) {
        // After the current microtasks: every write the replies of one socket read set off joins this batch.
        process.nextTick(() => {
          this.#flush();
        });
      }
      this.#queue.push({ command, wait, resolve, reject });
    });
  }

  #flush(): void {
    const batch = this.#queue;
    this.#queue = [];
    const wait = strictestWait(batch);
    const pipeline = batch.length > 1 || wait !== undefined ? this.#client.pipeline?.() : undefined;
    if (pipeline === undefined) {
      for (const { command, wait: waited, resolve, reject } of batch) {
        this.#direct(command, waited).then(resolve, reject);
      }
      return;
    }
    for (const { command } of batch) {
      queueOn(pipeline, command);
    }
    if (wait !== undefined) {
      pipeline.wait(wait.replicas, wait.timeoutMs);
    }
    execute(pipeline).then(
      (results) => {
        const waitOutcome = wait === undefined ? undefined : waitOutcomeOf(results[batch.length]);
        for (const [index, { wait: waited, resolve, reject }] of batch.entries()) {
          const [error, reply] = results[index] ?? [new Error('The pipeline gave no reply for this command.'), null];
          if (error !== null) {
            reject(error);
          } else {
            resolve(waited === undefined || waitOutcome === undefined ? reply : { reply, ...waitOutcome });
          }
        }
      },
      (error: unknown) => {
        for (const { reject } of batch) {
          reject(error);
        }
      },
    );
  }

  #direct(command: Command, wait: ReplicaWait | undefined): Promise<unknown> {
    if (wait !== undefined) {
      return this.#directWaited(command, wait);
    }
    switch (command.method) {
      case 'get':
        return this.#client.get(command.key);
      case 'set':
        return this.#client.set(command.key, command.value);
      case 'del':
        return this.#client.del(...command.keys);
      case 'evalsha':
        return this.#client.evalsha(command.sha1, command.numkeys, ...command.keysAndArgs);
      case 'eval':
        return this.#client.eval(command.script, command.numkeys, ...command.keysAndArgs);
    }
  }

  async #directWaited(command: Command, wait: ReplicaWait): Promise<WaitedReply> {
    const pipeline = this.#client.pipeline?.();
    if (pipeline === undefined) {
      throw new Error(
        'RedisCheckpointStorage cannot wait for replicas over a client without pipeline(): WAIT must follow the write on ' +
          'its own connection. Pass an ioredis Redis or Cluster client, or set waitForReplicas to false. Nothing was sent.',
      );
    }
    queueOn(pipeline, command);
    pipeline.wait(wait.replicas, wait.timeoutMs);
    const results = await execute(pipeline);
    const [error, reply] = results[0] ?? [new Error('The pipeline gave no reply for this command.'), null];
    if (error !== null) {
      throw error;
    }
    return { reply, ...waitOutcomeOf(results[1]) };
  }
}

/** The largest count and the longest timeout the batch's waiting writes ask for; `undefined` when none waits. */
function strictestWait(batch: readonly Queued[]): ReplicaWait | undefined {
  let strictest: ReplicaWait | undefined;
  for (const { wait } of batch) {
    if (wait !== undefined) {
      strictest =
        strictest === undefined
          ? wait
          : {
              replicas: Math.max(strictest.replicas, wait.replicas),
              timeoutMs: Math.max(strictest.timeoutMs, wait.timeoutMs),
            };
    }
  }
  return strictest;
}

function execute(pipeline: RedisCheckpointPipeline): Promise<[Error | null, unknown][]> {
  try {
    return pipeline.exec().then((results) => results ?? []);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

function waitOutcomeOf(result: [Error | null, unknown] | undefined): Omit<WaitedReply, 'reply'> {
  const [error, acknowledged] = result ?? [new Error('The pipeline gave no reply to WAIT.'), undefined];
  if (error !== null) {
    return { acknowledged: undefined, waitError: error };
  }
  if (typeof acknowledged !== 'number') {
    return { acknowledged: undefined, waitError: new Error(`WAIT answered ${String(acknowledged)}, not a count.`) };
  }
  return { acknowledged };
}

function queueOn(pipeline: RedisCheckpointPipeline, command: Command): void {
  switch (command.method) {
    case 'get':
      pipeline.get(command.key);
      break;
    case 'set':
      pipeline.set(command.key, command.value);
      break;
    case 'del':
      pipeline.del(...command.keys);
      break;
    case 'evalsha':
      pipeline.evalsha(command.sha1, command.numkeys, ...command.keysAndArgs);
      break;
    case 'eval':
      pipeline.eval(command.script, command.numkeys, ...command.keysAndArgs);
      break;
  }
}
