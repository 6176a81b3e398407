import { createServer, type Server, type Socket } from 'node:net';

/** A reply in RESP: a simple string (`+OK`), an error (`-MOVED …`), a bulk string, an integer, or an array of them. */
export type RespReply =
  { readonly simple: string } | { readonly error: string } | string | number | null | readonly RespReply[];

/** A TCP server that answers the Redis protocol as `answer` says, and counts the connections it accepted. */
export interface ScriptedRedisNode {
  readonly port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Every command received, as its arguments. */
  readonly commands: readonly (readonly string[])[];
  close(): Promise<void>;
}

/**
 * Starts a fake Redis node on a free loopback port: just enough of RESP to script what a server or a Cluster node
 * says (a redirection to an address of the test's choosing, a topology no real Cluster would announce). `answer`
 * gets each command's arguments; `undefined` leaves the command unanswered, as a server that stopped would.
 */
export async function startScriptedRedisNode(
  answer: (command: readonly string[]) => RespReply | undefined,
): Promise<ScriptedRedisNode> {
  let connections = 0;
  const commands: string[][] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const parsed = parseCommand(buffer);
        if (parsed === undefined) {
          return;
        }
        buffer = buffer.subarray(parsed.length);
        commands.push(parsed.command);
        const reply = answer(parsed.command);
        if (reply !== undefined) {
          socket.write(encode(reply));
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    get connections() {
      return connections;
    },
    commands,
    close: async () => {
      for (const socket of sockets) {
        socket.destroy();
      }
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

/** One command (an array of bulk strings) from the front of `buffer`, or undefined while it is incomplete. */
function parseCommand(buffer: Buffer): { command: string[]; length: number } | undefined {
  const lineEnd = (from: number): number => buffer.indexOf('\r\n', from);
  let end = lineEnd(0);
  if (end === -1 || buffer[0] !== 0x2a) {
    return undefined;
  }
  const count = Number(buffer.subarray(1, end).toString());
  let offset = end + 2;
  const command: string[] = [];
  for (let index = 0; index < count; index += 1) {
    end = lineEnd(offset);
    if (end === -1) {
      return undefined;
    }
    const size = Number(buffer.subarray(offset + 1, end).toString());
    if (buffer.length < end + 2 + size + 2) {
      return undefined;
    }
    command.push(buffer.subarray(end + 2, end + 2 + size).toString());
    offset = end + 2 + size + 2;
  }
  return { command, length: offset };
}

function encode(reply: RespReply): string {
  if (reply === null) {
    return '$-1\r\n';
  }
  if (typeof reply === 'number') {
    return `:${reply}\r\n`;
  }
  if (typeof reply === 'string') {
    return `$${Buffer.byteLength(reply)}\r\n${reply}\r\n`;
  }
  if (Array.isArray(reply)) {
    return `*${reply.length}\r\n${reply.map(encode).join('')}`;
  }
  const tagged = reply as { simple?: string; error?: string };
  return tagged.error === undefined ? `+${tagged.simple ?? ''}\r\n` : `-${tagged.error}\r\n`;
}
