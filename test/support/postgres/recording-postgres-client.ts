import type { PostgresClient, PostgresQueryResult } from '../../../runtime/index.js';

/** Passes every statement to `inner` and keeps its text, so a test can count what one call sent. */
export class RecordingPostgresClient implements PostgresClient {
  readonly statements: string[] = [];

  constructor(private readonly inner: PostgresClient) {}

  query(text: string, values: readonly unknown[]): Promise<PostgresQueryResult> {
    this.statements.push(text);
    return this.inner.query(text, values);
  }
}
