import { DataSource } from 'typeorm';
import { DeploymentSecretRepository } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/** Deployment secrets on real PostgreSQL: of replicas starting at once, the first candidate wins for all. */
describe('DeploymentSecretRepository', () => {
  const database = useTestDatabase(4);
  let db: DataSource;
  let secrets: DeploymentSecretRepository;

  beforeAll(() => {
    db = database.db;
    secrets = new DeploymentSecretRepository(db);
  });

  it('gives every concurrent caller the one stored value, and keeps it afterwards', async () => {
    const values = await Promise.all(
      ['c1', 'c2', 'c3', 'c4'].map((candidate) => secrets.findOrCreate('credentials_key', candidate)),
    );
    expect(new Set(values).size).toBe(1);
    expect(['c1', 'c2', 'c3', 'c4']).toContain(values[0]);
    expect(await secrets.findOrCreate('credentials_key', 'later')).toBe(values[0]);
    const rows: { value: string }[] = await db.query(
      `SELECT value FROM deployment_secrets WHERE name = 'credentials_key'`,
    );
    expect(rows).toEqual([{ value: values[0] }]);
  });

  it('keeps each secret by its own name', async () => {
    expect(await secrets.findOrCreate('storage_signing_secret', 'signing')).toBe('signing');
    expect(await secrets.findOrCreate('credentials_key', 'other')).not.toBe('signing');
  });
});
