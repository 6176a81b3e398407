import { assertRouted, execRouted, isRedirection } from './cluster-redirection.js';
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

/** A `WAIT` to send after a write on the write's own connection: `WAIT replicas timeoutMs`, none for 0 replicas. */
export interface ReplicaWait {
  readonly replicas: number;
  readonly timeoutMs: number;
  /** Also `INFO replication` right after the write, before the `WAIT`: the replica set `'auto'` judges it by. */
  readonly readsReplication?: boolean;
}

/** A write's reply, and what the `WAIT` sent after it on the same connection answered. */
export interface WaitedReply {
  readonly reply: unknown;
  /** How many replicas acknowledged every write sent before the `WAIT`; `undefined` when `WAIT` failed. */
  readonly acknowledged: number | undefined;
  /** Why `WAIT` failed, when it did. */
  readonly waitError?: unknown;
  /** What `INFO replication` answered right after the write, when asked ({@link ReplicaWait.readsReplication}). */
  readonly replication?: string;
}

interface Queued {
  readonly command: Command;
  /** Set for a write that must be followed by a `WAIT`; it then resolves to a {@link WaitedReply}. */
  readonly wait: ReplicaWait | undefined;
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** A command on its way: its number among the commands sent, and its keys, each numbered with it until its reply. */
interface SentCommand {
  readonly number: number;
  readonly keys: readonly string[];
}

/**
 * Sends the storage's commands, in the order the storage was called (ADR 0103). On a standalone server whose client
 * has `pipeline()`, the commands the storage is asked for in one tick go out as one pipeline: under many concurrent
 * writes one socket write carries many scripts, which is what makes a fenced write cost about what a plain `SET`
 * costs. A tick with one command sends it on its own; a Cluster client sends every command on its own (a pipeline
 * there must stay within one node, and redirections would apply to all of it).
 *
 * A write that waits for replicas goes out with `INFO replication` (under `'auto'`, ADR 1105) and a `WAIT` behind it on
 * its connection: one of each at the end of the tick's pipeline answers for every write before it (`WAIT` counts the
 * replicas that have the connection's last write, and replication keeps order), so the writes of one tick share one
 * wait (ADR 1101). A waiting write alone, or on a Cluster, goes out as a pipeline of itself, its `INFO` and its `WAIT`,
 * routed by the write's keys to the master that runs it, and sent again, whole, where a slot migration redirects it
 * (`MOVED`, `ASK`, `TRYAGAIN`; ADR 0104); ioredis follows the redirections of the commands sent on their own.
 *
 * A script the server no longer has (`NOSCRIPT` after a restart, a `SCRIPT FLUSH` or a failover) is run again from its
 * text only when no command on its keys was sent after it; otherwise the script's reply is an error saying nothing was
 * written, since running it now would put it after a write the caller made later.
 */
export class RedisCommandBatcher {
  readonly #client: RedisCheckpointClient;
  /** Whether commands of one tick may share a pipeline: the client has one and is not a Cluster. */
  readonly #batching: boolean;
  /**
   * Whether a batching client auto-pipelines: ioredis then queues a lone command behind the auto-pipeline in flight
   * but sends a pipeline at once, so a lone command too goes out in a pipeline, or a later tick's would overtake it.
   */
  readonly #autoPipelined: boolean;
  #queue: Queued[] = [];
  #flushScheduled = false;
  /** How many commands were sent; each command sent is numbered by it. */
  #sent = 0;
  /** For each key of a command in flight, the number of the last command sent on it. */
  readonly #lastSentOn = new Map<string, number>();

  constructor(client: RedisCheckpointClient) {
    this.#client = client;
    this.#batching = client.isCluster !== true && typeof client.pipeline === 'function';
    this.#autoPipelined = this.#batching && client.options?.enableAutoPipelining === true;
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

  /**
   * `EVALSHA` of a script known to be loaded, followed by `WAIT` when `wait` is given (it then resolves to a
   * {@link WaitedReply}); after every command asked for before it.
   */
  evalsha(
    sha1: string,
    numkeys: number,
    keysAndArgs: readonly string[],
    wait: ReplicaWait | undefined,
  ): Promise<unknown> {
    return this.#send({ method: 'evalsha', sha1, numkeys, keysAndArgs }, wait);
  }

  /** `EVAL` of a script not known to be loaded: ordered and batched like {@link evalsha}, with no `NOSCRIPT` to fear. */
  eval(
    script: string,
    numkeys: number,
    keysAndArgs: readonly string[],
    wait: ReplicaWait | undefined,
  ): Promise<unknown> {
    return this.#send({ method: 'eval', script, numkeys, keysAndArgs }, wait);
  }

  /**
   * `EVAL` at once, ahead of the commands still queued (asked for later): the run of a script again from its text
   * after `NOSCRIPT`, which {@link evalsha} answers only while no later command on its keys was sent.
   */
  evalNow(
    script: string,
    numkeys: number,
    keysAndArgs: readonly string[],
    wait: ReplicaWait | undefined,
  ): Promise<unknown> {
    return this.#direct({ method: 'eval', script, numkeys, keysAndArgs }, wait);
  }

  #send(command: Command, wait: ReplicaWait | undefined): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.#batching) {
        this.#queue.push({ command, wait, resolve, reject });
        this.#schedule();
      } else {
        // On its own, at once, as a client that does not batch always sends.
        this.#direct(command, wait).then(resolve, reject);
      }
    });
  }

  #schedule(): void {
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      // After the current microtasks: every write the replies of one socket read set off joins this batch.
      process.nextTick(() => {
        this.#flushScheduled = false;
        this.#flush();
      });
    }
  }

  /** Sends the queued commands, in order. */
  #flush(): void {
    const batch = this.#queue.splice(0);
    const wait = strictestWait(batch);
    const pipeline = this.#batching && (batch.length > 1 || wait !== undefined) ? this.#client.pipeline?.() : undefined;
    if (
      pipeline === undefined ||
      !queuedAll(
        pipeline,
        batch.map(({ command }) => command),
        wait,
      )
    ) {
      // No pipeline, or one that cannot carry one of the commands (nothing of it was sent): each on its own, in order.
      for (const { command, wait: waited, resolve, reject } of batch) {
        this.#direct(command, waited).then(resolve, reject);
      }
      return;
    }
    const sent = batch.map(({ command }) => this.#track(command));
    execute(pipeline).then(
      (results) => {
        const waitOutcome = wait === undefined ? undefined : waitOutcomeOf(results, batch.length, wait);
        for (const [index, { wait: waited, resolve, reject }] of batch.entries()) {
          const [error, reply] = results[index] ?? [new Error('The pipeline gave no reply for this command.'), null];
          const overtaken = this.#answered(sent[index]);
          if (error !== null) {
            reject(overtaken && isNoScript(error) ? overtakenError(error) : error);
          } else {
            resolve(waited === undefined || waitOutcome === undefined ? reply : { reply, ...waitOutcome });
          }
        }
      },
      (error: unknown) => {
        for (const [index, { reject }] of batch.entries()) {
          this.#answered(sent[index]);
          reject(error);
        }
      },
    );
  }

  /** Numbers `command` as sent, on each of its keys, until its reply arrives ({@link #answered}). */
  #track(command: Command): SentCommand {
    this.#sent += 1;
    const sent = { number: this.#sent, keys: keysOf(command) };
    for (const key of sent.keys) {
      this.#lastSentOn.set(key, sent.number);
    }
    return sent;
  }

  /** Whether a later command on one of the keys of `sent` was sent since it was. */
  #overtaken({ number, keys }: SentCommand): boolean {
    return keys.some((key) => this.#lastSentOn.get(key) !== number);
  }

  /** Forgets `sent`, its reply in; answers {@link #overtaken}. */
  #answered(sent: SentCommand | undefined): boolean {
    if (sent === undefined) {
      return false;
    }
    const overtaken = this.#overtaken(sent);
    for (const key of sent.keys) {
      if (this.#lastSentOn.get(key) === sent.number) {
        this.#lastSentOn.delete(key);
      }
    }
    return overtaken;
  }

  #direct(command: Command, wait: ReplicaWait | undefined): Promise<unknown> {
    const sent = this.#track(command);
    return this.#sendAlone(command, wait, sent).then(
      (reply) => {
        this.#answered(sent);
        return reply;
      },
      (error: unknown) => {
        throw this.#answered(sent) && (isNoScript(error) || isRedirection(error)) ? overtakenError(error) : error;
      },
    );
  }

  #sendAlone(command: Command, wait: ReplicaWait | undefined, sent: SentCommand): Promise<unknown> {
    if (wait !== undefined) {
      return this.#directWaited(command, wait, sent);
    }
    const pipeline = this.#autoPipelined ? this.#client.pipeline?.() : undefined;
    if (pipeline !== undefined) {
      queueOn(pipeline, command);
      return execute(pipeline).then(([result]) => replyOf(result));
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

  /**
   * The write, its `INFO` and its `WAIT` as one pipeline, which follows the write's Cluster redirections
   * ({@link execRouted}) while no later command on its keys was sent: sending it again after one would put it behind
   * that command.
   */
  async #directWaited(command: Command, wait: ReplicaWait, sent: SentCommand): Promise<WaitedReply> {
    const newPipeline = this.#client.pipeline?.bind(this.#client);
    const results =
      newPipeline === undefined
        ? undefined
        : await execRouted(
            this.#client,
            newPipeline,
            (pipeline) => {
              if (!queuedAll(pipeline, [command], wait)) {
                // Before exec(): nothing of the pipeline is sent.
                throw new PipelineCannotCarry();
              }
            },
            () => !this.#overtaken(sent),
          ).catch((error: unknown) => {
            if (error instanceof PipelineCannotCarry) {
              return undefined;
            }
            throw error;
          });
    if (results !== undefined) {
      assertRouted(this.#client, results);
      return { reply: results[0]?.[1], ...waitOutcomeOf(results, 1, wait) };
    }
    if (wait.replicas === 0) {
      // No pipeline that carries the command (a stub's, a mock's): INFO after it on its connection says the same.
      const reply = await this.#sendAlone(command, undefined, sent);
      return wait.readsReplication === true
        ? { reply, acknowledged: 0, replication: await this.#client.info('replication') }
        : { reply, acknowledged: 0 };
    }
    throw new Error(
      'RedisCheckpointStorage cannot wait for replicas over a client without pipeline(): WAIT must follow the write on ' +
        'its own connection. Pass an ioredis Redis or Cluster client, or set waitForReplicas to false. Nothing was sent.',
    );
  }
}

/** A pipeline lacks a method of the commands it was to carry (a mock's, say). */
class PipelineCannotCarry extends Error {}

/** Queues the commands (and their `WAIT`) on `pipeline`; false when the pipeline lacks a command's method (a mock's, say). */
function queuedAll(
  pipeline: RedisCheckpointPipeline,
  commands: readonly Command[],
  wait: ReplicaWait | undefined,
): boolean {
  try {
    for (const command of commands) {
      queueOn(pipeline, command);
    }
    if (wait !== undefined) {
      queueWait(pipeline, wait);
    }
    return true;
  } catch {
    return false;
  }
}

/** The keys a command touches: what a later command must not have touched for a `NOSCRIPT` rerun to keep order. */
function keysOf(command: Command): readonly string[] {
  switch (command.method) {
    case 'get':
    case 'set':
      return [command.key];
    case 'del':
      return command.keys;
    case 'evalsha':
    case 'eval':
      return command.keysAndArgs.slice(0, command.numkeys);
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/**
 * A command the server did not run (`NOSCRIPT`, or a Cluster redirection) that cannot be sent again without being put
 * after a later command on its keys.
 */
function overtakenError(error: unknown): Error {
  const notRun = isNoScript(error)
    ? 'The server no longer had the script (NOSCRIPT: restarted, SCRIPT FLUSH or a failover)'
    : "The write was not run: its key's Cluster slot is being moved to another master";
  return new Error(
    `${notRun}, and a command this storage was asked for later on the same keys ran meanwhile, so running the script ` +
      'again now would put this write after it. Nothing was written; write again.',
    { cause: error },
  );
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
              readsReplication: strictest.readsReplication === true || wait.readsReplication === true,
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

/** The reply of a pipeline's command, or its error thrown. */
function replyOf(result: [Error | null, unknown] | undefined): unknown {
  const [error, reply] = result ?? [new Error('The pipeline gave no reply for this command.'), null];
  if (error !== null) {
    throw error;
  }
  return reply;
}

/** `INFO replication` when `wait` reads it, then `WAIT` unless it waits for no replica. */
function queueWait(pipeline: RedisCheckpointPipeline, wait: ReplicaWait): void {
  if (wait.readsReplication === true) {
    pipeline.info('replication');
  }
  if (wait.replicas > 0) {
    pipeline.wait(wait.replicas, wait.timeoutMs);
  }
}

/** What the commands {@link queueWait} queued from `results[at]` on answered. */
function waitOutcomeOf(
  results: readonly [Error | null, unknown][],
  at: number,
  wait: ReplicaWait,
): Omit<WaitedReply, 'reply'> {
  let replication: { replication?: string } = {};
  if (wait.readsReplication === true) {
    const [error, info] = results[at] ?? [new Error('The pipeline gave no reply to INFO replication.'), undefined];
    if (error !== null || typeof info !== 'string') {
      return { acknowledged: undefined, waitError: error ?? new Error(`INFO replication answered ${String(info)}.`) };
    }
    replication = { replication: info };
  }
  if (wait.replicas === 0) {
    return { acknowledged: 0, ...replication };
  }
  const [error, acknowledged] = results[at + (wait.readsReplication === true ? 1 : 0)] ?? [
    new Error('The pipeline gave no reply to WAIT.'),
    undefined,
  ];
  if (error !== null) {
    return { acknowledged: undefined, waitError: error, ...replication };
  }
  if (typeof acknowledged !== 'number') {
    return {
      acknowledged: undefined,
      waitError: new Error(`WAIT answered ${String(acknowledged)}, not a count.`),
      ...replication,
    };
  }
  return { acknowledged, ...replication };
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
