/**
 * Variables and connections a test gives `testDag` (its `variables`/`connections` options):
 * only those, not the environment or `.airless/` files, so the test reads the same values
 * on every machine. The forms are those of `.airless/variables.json` and `connections.json`.
 */
import { fileConnection, variableText } from '../adapters/secrets-local.js';
import type { Connection, SecretsSource } from '../engine/index.js';

/**
 * A secrets source over fixed values; a kind not given falls back to `fallback`.
 *
 * @example
 * new FixedSecrets({ variables: { bucket: 'landing' }, connections: { db: 'postgres://u:p@h:5432/app' } }, new LocalSecrets());
 */
export class FixedSecrets implements SecretsSource {
  private readonly connections?: Map<string, Connection>;
  constructor(private readonly given: { variables?: Record<string, unknown>; connections?: Record<string, unknown> }, private readonly fallback: SecretsSource) {
    // Parsed now: a malformed connection fails the test at testDag, naming its id.
    if (given.connections) this.connections = new Map(Object.entries(given.connections).map(([id, v]) => [id, fileConnection(id, v)]));
  }

  async variable(key: string): Promise<string | undefined> {
    if (!this.given.variables) return this.fallback.variable(key);
    const v = Object.hasOwn(this.given.variables, key) ? this.given.variables[key] : undefined;
    return v === undefined ? undefined : variableText(v);
  }

  async connection(connId: string): Promise<Connection | undefined> {
    if (!this.connections) return this.fallback.connection(connId);
    const c = this.connections.get(connId);
    return c === undefined ? undefined : { ...c, extra: { ...c.extra } };
  }
}
