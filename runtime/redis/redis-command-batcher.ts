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
    };

interface Queued {
  readonly command: Command;
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Sends the storage's commands. On a standalone server whose client has `pipeline()`, the commands the storage is
 * asked for in one tick go out as one pipeline, in the order they were asked for (ADR 0103): under many concurrent
 * writes one socket write carries many scripts, which is what makes a fenced write cost about what a plain `SET`
 * costs. A tick with one command sends it on its own; a Cluster client sends every command on its own (a pipeline
 * there must stay within one node, and redirections would apply to all of it).
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
    return this.#send({ method: 'get', key }) as Promise<string | null>;
  }

  set(key: string, value: string): Promise<unknown> {
    return this.#send({ method: 'set', key, value });
  }

  del(...keys: string[]): Promise<unknown> {
    return this.#send({ method: 'del', keys });
  }

  /** `EVALSHA`; with `batchable` false (a script not yet known to be loaded) always on its own. */
  evalsha(sha1: string, numkeys: number, keysAndArgs: readonly string[], batchable: boolean): Promise<unknown> {
    const command: Command = { method: 'evalsha', sha1, numkeys, keysAndArgs };
    return batchable ? this.#send(command) : this.#direct(command);
  }

  #send(command: Command): Promise<unknown> {
    if (!this.#batching) {
      return this.#direct(command);
    }
    return new Promise((resolve, reject) => {
      if (this.#queue.length === 0) {
        // After the current microtasks: every write the replies of one socket read set off joins this batch.
        process.nextTick(() => {
          this.#flush();
        });
      }
      this.#queue.push({ command, resolve, reject });
    });
  }

  #flush(): void {
    const batch = this.#queue;
    this.#queue = [];
    const pipeline = batch.length > 1 ? this.#client.pipeline?.() : undefined;
    if (pipeline === undefined) {
      for (const { command, resolve, reject } of batch) {
        this.#direct(command).then(resolve, reject);
      }
      return;
    }
    for (const { command } of batch) {
      queueOn(pipeline, command);
    }
    let replies: Promise<[Error | null, unknown][] | null>;
    try {
      replies = pipeline.exec();
    } catch (error) {
      replies = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    replies.then(
      (results) => {
        for (const [index, { resolve, reject }] of batch.entries()) {
          const [error, reply] = results?.[index] ?? [new Error('The pipeline gave no reply for this command.'), null];
          if (error === null) {
            resolve(reply);
          } else {
            reject(error);
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

  #direct(command: Command): Promise<unknown> {
    switch (command.method) {
      case 'get':
        return this.#client.get(command.key);
      case 'set':
        return this.#client.set(command.key, command.value);
      case 'del':
        return this.#client.del(...command.keys);
      case 'evalsha':
        return this.#client.evalsha(command.sha1, command.numkeys, ...command.keysAndArgs);
    }
  }
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
  }
}
