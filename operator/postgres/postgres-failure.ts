import { OperatorError } from '../operator-error.js';

/**
 * One line saying why talking to `target` failed, from what node-postgres or the server reported: a refused
 * address, no answer within the timeout, refused credentials, a missing database, table or schema.
 */
export function postgresFailure(error: unknown, target: string, timeoutMs: number): OperatorError {
  if (error instanceof OperatorError) {
    return error;
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return new OperatorError(
        `cannot connect to ${target}: connection refused (${message}); check the host and port, and that the server runs`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new OperatorError(
        `cannot connect to ${target}: its host name does not resolve (${message}); check the host`,
      );
    case '28P01':
    case '28000':
      return new OperatorError(
        `${target} refused the credentials (${message}); check the user name and password in the URL`,
      );
    case '3D000':
      return new OperatorError(`${target}: ${message}; check the database name in the URL`);
    case '57014':
      return noAnswer(target, timeoutMs, 'the statement timeout');
  }
  if (/timeout|timed out/iu.test(message)) {
    return noAnswer(target, timeoutMs, message);
  }
  if (/SASL|password must be a string/u.test(message)) {
    return new OperatorError(
      `${target} asks for a password and none was given; put it in the URL (postgres://user:password@host/database) or in PGPASSWORD`,
    );
  }
  return new OperatorError(`${target}: ${message}`);
}

function noAnswer(target: string, timeoutMs: number, what: string): OperatorError {
  return new OperatorError(
    `no answer from ${target} within ${timeoutMs} ms (${what}); check that the server is up and not paused, or give it longer with --timeout-ms`,
  );
}
