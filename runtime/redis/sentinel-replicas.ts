/** How long an answer of the Sentinels is used before they are asked again (in the background, while it answers). */
const sentinelAnswerRefreshMs = 1_000;

/** A connection to one Sentinel, made with the client's `duplicate`: an ioredis `Redis`. */
interface SentinelConnection {
  call(...args: string[]): Promise<unknown>;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  disconnect(): void;
}

/**
 * The part of an ioredis `Redis` that finds its master through Sentinels (`new Redis({ sentinels, name })`): the
 * Sentinels it was given, the master's name and the Sentinels' credentials. Its `duplicate` reaches them as ioredis
 * does itself (a connection a question, closed after the answer); it is looked up where it is called rather than
 * declared here, since a `Cluster`'s takes other arguments. Typed structurally, so the package needs no ioredis types.
 */
export interface SentinelClient {
  readonly options?: {
    readonly sentinels?: readonly { readonly host?: string; readonly port?: number }[] | null | undefined;
    readonly name?: string | undefined;
    readonly sentinelUsername?: string | undefined;
    readonly sentinelPassword?: string | undefined;
    readonly sentinelTLS?: unknown;
    /** Shared with a Cluster's options, so that they too fit this type (TypeScript's weak-type check). */
    readonly enableAutoPipelining?: boolean | undefined;
  };
}

interface Answer {
  readonly replicas: number | undefined;
  readonly askedAt: number;
}

/**
 * The replicas the Sentinels a client knows would consider for promotion (ADR 1106): each Sentinel's
 * `SENTINEL REPLICAS <name>`, united by address, less a replica with `replica-priority 0` (never promoted), one the
 * Sentinel has never reached (no run ID: a stale address), and one it last saw answering as a master (a deposed master
 * waiting to be made a replica, or a dead one). A replica it cannot reach now is counted: on the other side of a
 * partition it is the one the majority may promote. Asked of every Sentinel at once, each with the wait's timeout;
 * the answers that came decide, and `undefined` says none came. An answer is used for a second, then read again in
 * the background while it goes on answering: it errs towards waiting, since the master's own replicas are counted too.
 */
export class SentinelReplicas {
  #answer: Answer | undefined;
  #asking: Promise<number | undefined> | undefined;

  private constructor(
    private readonly client: SentinelClient,
    private readonly name: string,
    private readonly sentinels: readonly { readonly host?: string; readonly port?: number }[],
  ) {}

  /** The Sentinels' replicas of `client`'s master; `undefined` for a client that does not find its master through Sentinels. */
  static over(client: SentinelClient): SentinelReplicas | undefined {
    const { sentinels, name } = client.options ?? {};
    return sentinels === null || sentinels === undefined || sentinels.length === 0 || name === undefined
      ? undefined
      : new SentinelReplicas(client, name, sentinels);
  }

  /** Starts asking the Sentinels when no answer is in or the last is a second old, so that {@link count} finds it in. */
  refresh(timeoutMs: number): void {
    const answer = this.#answer;
    if (answer === undefined || performance.now() - answer.askedAt >= sentinelAnswerRefreshMs) {
      this.#ask(timeoutMs).catch(() => undefined);
    }
  }

  /** How many replicas the Sentinels list that could be promoted; `undefined` when none of them answered. */
  async count(timeoutMs: number): Promise<number | undefined> {
    const answer = this.#answer;
    if (answer !== undefined) {
      this.refresh(timeoutMs);
      return answer.replicas;
    }
    return this.#ask(timeoutMs);
  }

  #ask(timeoutMs: number): Promise<number | undefined> {
    if (this.#asking !== undefined) {
      return this.#asking;
    }
    const askedAt = performance.now();
    const asking = Promise.allSettled(this.sentinels.map((sentinel) => this.#replicasKnownTo(sentinel, timeoutMs)))
      .then((answers) => {
        const known = new Set<string>();
        let answered = false;
        for (const answer of answers) {
          if (answer.status === 'fulfilled') {
            answered = true;
            answer.value.forEach((address) => known.add(address));
          }
        }
        // No Sentinel answered: an earlier answer stays, and the next call asks again.
        const replicas = answered ? known.size : this.#answer?.replicas;
        this.#answer = { replicas, askedAt: answered ? askedAt : (this.#answer?.askedAt ?? askedAt) };
        return replicas;
      })
      .finally(() => {
        this.#asking = undefined;
      });
    this.#asking = asking;
    return asking;
  }

  /** The addresses of the replicas `sentinel` would consider for promotion. */
  async #replicasKnownTo(
    sentinel: { readonly host?: string; readonly port?: number },
    timeoutMs: number,
  ): Promise<string[]> {
    const { options = {} } = this.client;
    const duplicate: unknown = Reflect.get(this.client, 'duplicate');
    if (typeof duplicate !== 'function') {
      throw new Error('The client has no duplicate() to reach its Sentinels with.');
    }
    // ioredis's Redis#duplicate(override): a new client with the options given over the client's own.
    const connection = duplicate.call(this.client, {
      // A plain connection to the Sentinel itself, with its own credentials, as ioredis's Sentinel connector makes.
      sentinels: undefined,
      Connector: undefined,
      path: undefined,
      host: sentinel.host ?? 'localhost',
      port: sentinel.port ?? 26379,
      username: options.sentinelUsername ?? null,
      password: options.sentinelPassword ?? null,
      tls: options.sentinelTLS,
      db: 0,
      lazyConnect: false,
      enableReadyCheck: false,
      enableOfflineQueue: true,
      enableAutoPipelining: false,
      readOnly: false,
      retryStrategy: null,
      maxRetriesPerRequest: 0,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
    }) as SentinelConnection;
    connection.on('error', () => undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const reply = await Promise.race([
        connection.call('SENTINEL', 'REPLICAS', this.name),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            reject(new Error(`no answer within ${timeoutMs} ms`));
          }, timeoutMs);
        }),
      ]);
      return promotableReplicasIn(reply);
    } finally {
      clearTimeout(timer);
      connection.disconnect();
    }
  }
}

/** The `ip:port` of each replica a `SENTINEL REPLICAS` reply lists that its Sentinel could promote ({@link SentinelReplicas}). */
export function promotableReplicasIn(reply: unknown): string[] {
  if (!Array.isArray(reply)) {
    throw new Error('SENTINEL REPLICAS did not answer with a list.');
  }
  return reply.flatMap((entry: unknown) => {
    const fields = new Map<string, string>();
    const flat = Array.isArray(entry) ? (entry as unknown[]) : [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      fields.set(String(flat[index]), String(flat[index + 1]));
    }
    const priority = fields.get('replica-priority') ?? fields.get('slave-priority');
    return priority === '0' || (fields.get('runid') ?? '') === '' || fields.get('role-reported') === 'master'
      ? []
      : [`${fields.get('ip') ?? ''}:${fields.get('port') ?? ''}`];
  });
}
