import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

// A client of a language server over stdio, as small as the Language Server Protocol allows: JSON-RPC messages framed
// by a Content-Length header, requests matched to responses by id, the server's own requests answered by `answer`.
// Its notifications (log messages, status) are not read: diagnostics are pulled (`textDocument/diagnostic`).

/** What the client answers to a request the server sends it (`workspace/configuration`, `client/registerCapability`). */
export type ServerRequestHandler = (method: string, params: unknown) => unknown;

interface Message {
  readonly id?: number | string;
  readonly method?: string;
  readonly params?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

/** One language server process and the client end of its stdio. */
export class LanguageServerClient {
  readonly #server: ChildProcessWithoutNullStreams;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #nextId = 1;
  #buffer = Buffer.alloc(0);
  #stderr = '';

  constructor(command: string, args: readonly string[], cwd: string, answer: ServerRequestHandler) {
    this.#server = spawn(command, args, { cwd, stdio: 'pipe' });
    this.#server.stderr.on('data', (chunk: Buffer) => {
      this.#stderr += chunk.toString('utf8');
    });
    this.#server.stdout.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      for (let message = this.#take(); message !== undefined; message = this.#take()) {
        this.#receive(message, answer);
      }
    });
    this.#server.on('exit', (code) => {
      for (const { reject } of this.#pending.values()) {
        reject(new Error(`the language server exited with ${String(code)}: ${this.#stderr}`));
      }
    });
  }

  /** Sends a request and resolves with its result, or rejects with the server's error. */
  request<Result>(method: string, params: unknown): Promise<Result> {
    const id = this.#nextId++;
    this.#send({ jsonrpc: '2.0', id, method, params });
    return new Promise<Result>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
  }

  notify(method: string, params: unknown): void {
    this.#send({ jsonrpc: '2.0', method, params });
  }

  /** Asks the server to shut down and exit, and waits until it has. */
  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.#server.once('exit', resolve));
    await this.request('shutdown', null);
    this.notify('exit', null);
    await exited;
  }

  #send(message: object): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    this.#server.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.#server.stdin.write(body);
  }

  /** The first whole message in the buffer, taken off it. */
  #take(): Message | undefined {
    const headerEnd = this.#buffer.indexOf('\r\n\r\n');
    const length = Number(/Content-Length: (\d+)/iu.exec(this.#buffer.subarray(0, headerEnd).toString('ascii'))?.[1]);
    if (headerEnd === -1 || this.#buffer.length < headerEnd + 4 + length) {
      return undefined;
    }
    const body = this.#buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8');
    this.#buffer = this.#buffer.subarray(headerEnd + 4 + length);
    return JSON.parse(body) as Message;
  }

  #receive(message: Message, answer: ServerRequestHandler): void {
    if (message.method === undefined) {
      const pending = this.#pending.get(Number(message.id));
      this.#pending.delete(Number(message.id));
      if (message.error === undefined) {
        pending?.resolve(message.result);
      } else {
        pending?.reject(new Error(`${message.error.message} (${message.error.code})`));
      }
    } else if (message.id !== undefined) {
      this.#send({ jsonrpc: '2.0', id: message.id, result: answer(message.method, message.params) ?? null });
    }
  }
}
