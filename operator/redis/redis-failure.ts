import { OperatorError } from '../operator-error.js';

/**
 * One line saying why talking to `target` failed, from what ioredis reported: a refused or unresolvable address, no
 * answer within the timeout, refused credentials; anything else as the server or client said it. Never repeats a
 * password: `target` is the redacted URL, and ioredis's messages carry none.
 */
export function redisFailure(error: unknown, target: string, timeoutMs: number): OperatorError {
  if (error instanceof OperatorError) {
    return error;
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'ECONNREFUSED') {
    return new OperatorError(
      `cannot connect to ${target}: connection refused (${message}); check the host and port, and that the server runs`,
    );
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new OperatorError(
      `cannot connect to ${target}: its host name does not resolve (${message}); check the host`,
    );
  }
  if (/Command timed out|ETIMEDOUT|timed out/iu.test(message)) {
    return new OperatorError(
      `no answer from ${target} within ${timeoutMs} ms; check that the server is up and not paused, and the port and ` +
        'TLS setting (rediss://) are right, or give it longer with --timeout-ms',
    );
  }
  if (message.startsWith('WRONGPASS') || message.startsWith('NOAUTH') || message.includes('invalid password')) {
    return new OperatorError(
      `${target} refused the credentials (${message.split(' ')[0] ?? message}); check the user name and password in the URL ` +
        '(redis://user:password@host:port, or redis://:password@host:port without ACL users)',
    );
  }
  return new OperatorError(`${target}: ${message}`);
}
