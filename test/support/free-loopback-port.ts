import { createServer, type Server } from 'node:net';

/** The loopback address every test server binds to: tests never listen on, or send to, anything else. */
export const loopbackHost = '127.0.0.1';

/** Resolves to `port` when it can be bound on loopback now (0: any free port, resolved to the one the OS picked). */
export function bindableLoopbackPort(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: loopbackHost, port, exclusive: true }, () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') {
          resolve(address.port);
        } else {
          reject(new Error('The probe socket has no port.'));
        }
      });
    });
  });
}

/** A loopback port that is free now. Another process may still take it before the caller binds it: retry on that. */
export function freeLoopbackPort(): Promise<number> {
  return bindableLoopbackPort(0);
}

/** Has `server` listen on a free loopback port, and resolves to it; rejects when it cannot listen. */
export function listenOnFreeLoopbackPort(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: loopbackHost, port: 0, exclusive: true }, () => {
      const address = server.address();
      if (address !== null && typeof address === 'object') {
        resolve(address.port);
      } else {
        reject(new Error('The listening socket has no port.'));
      }
    });
  });
}
