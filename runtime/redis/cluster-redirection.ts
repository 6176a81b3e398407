/** The part of an ioredis `Cluster` that reloads its slot map; a standalone client has none. */
export interface SlotMapClient {
  refreshSlotsCache?(callback?: (error?: Error | null) => void): unknown;
}

/**
 * The options of an ioredis `Cluster` that bound how far {@link execRouted} follows redirections, as ioredis bounds its
 * own: `maxRedirections` (16 by default), `retryDelayOnTryAgain` (100 ms) and the nodes' `commandTimeout`. `natMap`
 * maps the address in a redirection to the one the client connects to.
 */
interface ClusterRoutingOptions {
  readonly maxRedirections?: number | undefined;
  readonly retryDelayOnTryAgain?: number | undefined;
  readonly redisOptions?: { readonly commandTimeout?: number | undefined } | undefined;
  /** ioredis's `NatMap`: an object or a function from `host:port`; read at run time, so any version's type fits. */
  readonly natMap?: unknown;
}

/** The client {@link execRouted} sends on: an ioredis `Cluster` (or a standalone client, which is never redirected). */
export interface RoutingClient extends SlotMapClient {
  readonly isCluster?: boolean;
  /** Typed loosely so a standalone client's options fit too; read as {@link ClusterRoutingOptions}. */
  readonly options?: object;
  /** The Cluster's node connections (ioredis `Redis` clients), where a redirected pipeline is sent again. */
  nodes?(role: 'all'): readonly unknown[];
}

/** A pipeline {@link execRouted} sends: its first command is keyed, and routes it to the key's master. */
export interface RoutedPipeline {
  exec(): Promise<[Error | null, unknown][] | null>;
}

/** A Cluster node's connection, as `Cluster#nodes()` lists it: an ioredis `Redis`, with its own pipeline. */
interface NodeConnection {
  readonly options: { readonly host?: unknown; readonly port?: unknown };
  pipeline(): unknown;
}

/** Where to send a pipeline again: through the Cluster's slot map, or to one node, after `ASKING` for `ASK`. */
type Route = { readonly node: NodeConnection; readonly asking: boolean } | undefined;

const defaultMaxRedirections = 16;
const defaultTryAgainDelayMs = 100;

/**
 * Sends a pipeline that `queue` fills on `newPipeline()`, and follows its first command's redirections as ioredis
 * follows a lone command's: `MOVED` sends it again to the node named (and reloads the slot map), `ASK` sends `ASKING`
 * and it to the node named, `TRYAGAIN` (a multi-key command on a slot whose keys are split by a migration) sends it
 * again after `retryDelayOnTryAgain`. The whole pipeline goes each time, so a `WAIT` or `INFO` behind the command runs
 * on the connection that ran it; ioredis itself sends a pipeline again only when its other commands are read-only,
 * which `WAIT` and `INFO` are not. A redirected command did not run, so sending it again runs it once.
 *
 * Resolves to the replies of the last try (without `ASKING`'s). Gives up after `maxRedirections` redirections, or when
 * the next try would start after the command timeout from the first: the first command's reply is then an error saying
 * so, which {@link assertRouted} throws. `mayResend` is asked before each try again: false (a later command on the
 * same keys was sent meanwhile, and would be overtaken) leaves the redirection as the first command's reply.
 */
export async function execRouted<P extends RoutedPipeline>(
  client: RoutingClient,
  newPipeline: () => P,
  queue: (pipeline: P) => void,
  mayResend: () => boolean = () => true,
): Promise<[Error | null, unknown][]> {
  const options: ClusterRoutingOptions = client.options ?? {};
  const maxRedirections = options.maxRedirections ?? defaultMaxRedirections;
  const tryAgainDelayMs = options.retryDelayOnTryAgain ?? defaultTryAgainDelayMs;
  const deadline = performance.now() + (options.redisOptions?.commandTimeout ?? Number.POSITIVE_INFINITY);
  let route: Route;
  for (let redirections = 1; ; redirections += 1) {
    // A node's pipeline is an ioredis `Redis` pipeline: it has every command P has.
    const pipeline = route === undefined ? newPipeline() : (onNode(route) as P);
    queue(pipeline);
    const replies = (await pipeline.exec()) ?? [];
    const results = route?.asking === true ? replies.slice(1) : replies;
    const error = results[0]?.[0] ?? null;
    const [kind, address] = error === null || client.isCluster !== true ? [] : redirectionIn(error);
    if (error === null || kind === undefined || !mayResend()) {
      return results;
    }
    const delayMs = kind === 'MOVED' ? 0 : tryAgainDelayMs;
    if (redirections >= maxRedirections || performance.now() + delayMs > deadline) {
      return [[gaveUpError(error, redirections), null], ...results.slice(1)];
    }
    const node = nodeAt(client, options.natMap, address);
    if (kind === 'MOVED' && node !== undefined) {
      route = { node, asking: false };
      client.refreshSlotsCache?.();
    } else if (kind === 'MOVED') {
      // A node this client has no connection to yet is in the slot map once it is reloaded.
      route = undefined;
      await slotMapReloaded(client, tryAgainDelayMs);
    } else if (kind === 'ASK' && node !== undefined) {
      route = { node, asking: true };
    } else {
      // TRYAGAIN, or an ASK to a node with no slot yet (no connection to it): the slot settles, or MOVED names it.
      route = undefined;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

/** A pipeline on `route`'s node, beginning with `ASKING` when the route says so. */
function onNode({ node, asking }: NonNullable<Route>): unknown {
  const pipeline = node.pipeline() as { asking(): unknown };
  if (asking) {
    pipeline.asking();
  }
  return pipeline;
}

/**
 * Asks `client` to reload its slot map; resolves once it did (or failed to: the next try is bounded too), or after
 * `waitMs`.
 */
function slotMapReloaded(client: SlotMapClient, waitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, waitMs);
    client.refreshSlotsCache?.(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Throws the error of a pipeline's first command, the keyed one that routes it to the key's master, after asking a
 * Cluster client to reload its slot map when the error is a redirection (`MOVED`, `ASK`) that {@link execRouted} did
 * not follow: the pipeline's other replies came from a node that does not hold the key and say nothing of its master
 * (a `WAIT` on a connection with no write answers at once).
 */
export function assertRouted(client: SlotMapClient, results: readonly [Error | null, unknown][] | null): void {
  const [error] = results?.[0] ?? [new Error('The pipeline gave no reply to the command that routes it.')];
  if (error === null) {
    return;
  }
  if (/^(MOVED|ASK) /u.test(error.message)) {
    client.refreshSlotsCache?.();
  }
  throw error;
}

/** Whether `error` is a Cluster redirection: the command did not run, and may be sent again. */
export function isRedirection(error: unknown): boolean {
  return error instanceof Error && redirectionIn(error)[0] !== undefined;
}

/** A redirection's kind and, for `MOVED` and `ASK`, the `host:port` it names. */
function redirectionIn(error: Error): [] | ['MOVED' | 'ASK' | 'TRYAGAIN', string | undefined] {
  const match = /^(MOVED|ASK) \d+ (\S+)|^(TRYAGAIN)\b/u.exec(error.message);
  if (match === null) {
    return [];
  }
  return match[3] === 'TRYAGAIN' ? ['TRYAGAIN', undefined] : [match[1] as 'MOVED' | 'ASK', match[2]];
}

/** The connection of `client` to the node at `address` (after `natMap`), if it has one. */
function nodeAt(client: RoutingClient, natMap: unknown, address: string | undefined): NodeConnection | undefined {
  if (address === undefined) {
    return undefined;
  }
  const mapped =
    typeof natMap === 'function'
      ? (natMap as (key: string) => unknown)(address)
      : typeof natMap === 'object' && natMap !== null
        ? (natMap as Record<string, unknown>)[address]
        : undefined;
  const separator = address.lastIndexOf(':');
  const { host, port } = isAddress(mapped)
    ? mapped
    : { host: address.slice(0, separator), port: Number(address.slice(separator + 1)) };
  return client
    .nodes?.('all')
    .find(
      (node): node is NodeConnection =>
        isNodeConnection(node) && node.options.host === host && Number(node.options.port) === port,
    );
}

function isAddress(value: unknown): value is { host: string; port: number } {
  return typeof value === 'object' && value !== null && 'host' in value && 'port' in value;
}

function isNodeConnection(node: unknown): node is NodeConnection {
  return (
    typeof node === 'object' &&
    node !== null &&
    'options' in node &&
    typeof node.options === 'object' &&
    node.options !== null &&
    'pipeline' in node &&
    typeof node.pipeline === 'function'
  );
}

/** The error a redirected command's reply becomes when {@link execRouted} stops following it. */
function gaveUpError(last: Error, redirections: number): Error {
  return new Error(
    `Redis Cluster redirected this command ${redirections} times while its slot was being moved between masters ` +
      `(last: ${last.message}), and it was not run: the client's maxRedirections, retryDelayOnTryAgain and commandTimeout ` +
      'bound how long it is followed. Nothing was written; try again, or raise those options if migrations are slow.',
    { cause: last },
  );
}
