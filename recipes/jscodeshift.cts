// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS file under verbatimModuleSyntax imports so.
import threads = require('node:worker_threads');
import type { TransformApi, TransformFile } from './add-write-conditions/jscodeshift.js';

const WORKER = 'checkpoint-fencing-codemod jscodeshift worker';

interface Reply {
  readonly output?: string | undefined;
  /** Structured cloning carries an Error's message and stack across threads. */
  readonly error?: Error;
  readonly calls: readonly (readonly ['report', string] | readonly ['stats', string, number | undefined])[];
}

let worker: threads.Worker | undefined;

/**
 * The add-write-conditions recipe as a jscodeshift transform. jscodeshift requires it, by default under
 * @babel/register, whose hook compiles every file required after it and fails on ts-morph's class static blocks; so the
 * recipe runs in a worker thread, whose module system the hook never reaches. Resolves to the new source, or
 * `undefined` when the file needs nothing; reports and stats reach `api` as the recipe makes them.
 */
async function addWriteConditions(file: TransformFile, api: TransformApi): Promise<string | undefined> {
  worker ??= new threads.Worker(__filename, { workerData: WORKER });
  // Idle, the worker must not keep jscodeshift's process alive; a pending reply's port keeps it alive while needed.
  worker.unref();
  const { port1, port2 } = new threads.MessageChannel();
  const reply = new Promise<Reply>((resolve) => port1.once('message', resolve));
  worker.postMessage({ file: { path: file.path, source: file.source }, port: port2 }, [port2]);
  const { output, error, calls } = await reply;
  port1.close();
  for (const [method, name, quantity] of calls) {
    api[method]?.(name, quantity);
  }
  if (error !== undefined) {
    throw error;
  }
  return output;
}

if (threads.workerData === WORKER) {
  threads.parentPort?.on('message', ({ file, port }: { file: TransformFile; port: threads.MessagePort }) => {
    const calls: Reply['calls'][number][] = [];
    const api: TransformApi = {
      report: (message) => calls.push(['report', message]),
      stats: (name, quantity) => calls.push(['stats', name, quantity]),
    };
    void import('./add-write-conditions/jscodeshift.js')
      .then(({ default: upgrade }) => ({ output: upgrade(file, api), calls }))
      .catch((error: unknown) => ({ error: error instanceof Error ? error : new Error(String(error)), calls }))
      .then((reply: Reply) => {
        port.postMessage(reply);
        port.close();
      });
  });
}

export = addWriteConditions;
