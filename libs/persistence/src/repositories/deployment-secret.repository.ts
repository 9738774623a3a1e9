import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The secrets a deployment generated for itself (table deployment_secrets). */
type DeploymentSecretName = 'storage_signing_secret' | 'credentials_key' | 'end_user_token_secret';

/** Secrets generated on first start and kept in PostgreSQL, so every replica uses the same ones. */
@Injectable()
export class DeploymentSecretRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * The stored secret; when there is none yet, `candidate` becomes it. Of replicas starting at once, the first
   * insert wins and every one reads the winner's value: the insert and the read are two statements, so the
   * read's snapshot sees a row another replica committed while this one waited on its conflict.
   */
  // crosses tenants: the deployment's own secrets are no organization's
  async findOrCreate(name: DeploymentSecretName, candidate: string): Promise<string> {
    await this.db.query(
      `INSERT INTO deployment_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
      [name, candidate],
    );
    const rows: { value: string }[] = await this.db.query(
      `SELECT value FROM deployment_secrets WHERE name = $1`,
      [name],
    );
    return rows[0].value;
  }
}
