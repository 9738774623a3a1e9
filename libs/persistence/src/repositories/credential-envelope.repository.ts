import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

interface CredentialEnvelope {
  connectionId: string;
  envelope: string;
}

/**
 * Encrypted connection credentials across every organization, for key maintenance only (moving envelopes
 * to another key); never to read credentials for a request, which goes through ConnectionRepository's scope.
 */
@Injectable()
export class CredentialEnvelopeRepository {
  constructor(private readonly db: DataSource) {}

  /** Envelopes that start with `prefix` (e.g. `v1:<key id>:`: those encrypted with one key). */
  // crosses tenants: key rotation re-encrypts every organization's connection credentials (startup, admin CLI)
  async listWithPrefix(prefix: string): Promise<CredentialEnvelope[]> {
    const rows: { id: string; credentials_encrypted: string }[] = await this.db.query(
      `SELECT id, credentials_encrypted FROM connections WHERE starts_with(credentials_encrypted, $1)`,
      [prefix],
    );
    return rows.map((row) => ({ connectionId: row.id, envelope: row.credentials_encrypted }));
  }

  /** Replaces an envelope only if it is still `from`: a concurrent writer's newer value is kept. */
  // crosses tenants: key rotation re-encrypts every organization's connection credentials (startup, admin CLI)
  async replace(connectionId: string, from: string, to: string): Promise<boolean> {
    const [, count]: [unknown, number] = await this.db.query(
      `UPDATE connections SET credentials_encrypted = $3 WHERE id = $1 AND credentials_encrypted = $2`,
      [connectionId, from, to],
    );
    return count > 0;
  }
}
