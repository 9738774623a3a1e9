import { execFile } from 'node:child_process';
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createOrg } from '../factories/admin';
import { api } from '../support/http';
import { postUpload as upload, UploadPermission as Permission } from '../support/uploads';
import { AppProcess, startGateway } from '../support/processes';
import {
  appScript,
  createTestEnvironment,
  queryDatabase,
  TestEnvironment,
} from '../support/test-environment';

const run = promisify(execFile);

/**
 * Issue 16, item 4: with STORAGE_SIGNING_SECRET and CREDENTIALS_KEYS unset, the public values earlier versions
 * defaulted to sign nothing and decrypt nothing; each deployment generates its own, once, for every replica.
 */
const PUBLIC_SIGNING_SECRET = 'parley-local-storage-dev-secret';
const PUBLIC_CREDENTIALS_KEY = Buffer.from('cGFybGV5LWRldi1jcmVkZW50aWFscy1rZXktMDAwMDA=', 'base64');

const keyIdOf = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

/** An envelope as CredentialCipher makes it (`v1:<key id>:<iv>:<tag>:<ciphertext>`), with a given key. */
function encryptWith(key: Buffer, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return [
    'v1',
    keyIdOf(key),
    iv.toString('base64'),
    cipher.getAuthTag().toString('base64'),
    body.toString('base64'),
  ].join(':');
}

function decryptWith(key: Buffer, envelope: string): unknown {
  const [, , iv, tag, body] = envelope.split(':');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return JSON.parse(
    Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString(),
  );
}

describe('security: no built-in secrets (issue 16, item 4)', () => {
  let environment: TestEnvironment;
  let storageDir: string;
  let gateways: AppProcess[] = [];
  let client: ReturnType<typeof api>;
  let orgId: string;
  let key: string;
  let legacyConnectionId: string;

  beforeAll(async () => {
    storageDir = await mkdtemp(join(tmpdir(), 'parley-security-secrets-'));
    environment = await createTestEnvironment({ STORAGE_DIR: storageDir });
    const org = await createOrg(environment.env);
    orgId = org.orgId;
    key = org.key;
    // A connection stored by an earlier version, encrypted with its public development key.
    legacyConnectionId = '0190a0b0-0000-7000-8000-0000000000c1';
    await queryDatabase(
      environment.databaseUrl,
      `INSERT INTO connections (id, org_id, name, kind, created_by, status, inoperative, credentials_encrypted)
       VALUES ($1, $2, 'old drive', 'googledrive', 'alice', 'active', false, $3)`,
      [legacyConnectionId, orgId, encryptWith(PUBLIC_CREDENTIALS_KEY, { access_token: 'old-token-123' })],
    );
    // Two replicas starting at once: both must settle on one generated secret.
    gateways = await Promise.all([startGateway(environment.env), startGateway(environment.env)]);
    client = api(gateways[0].url!, org.key);
  });

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await environment?.dispose();
    if (storageDir) await rm(storageDir, { recursive: true, force: true });
  });

  it('refuses an upload policy forged with the former public signing secret', async () => {
    const permission = (await client.get<Permission>('/chat/files/upload?filename=a.txt&mimetype=text/plain'))
      .body;
    const policy = JSON.parse(Buffer.from(permission.fields.Policy, 'base64').toString());
    // The attacker's own key, in another organization's folder, signed with the public constant.
    policy.conditions[0] = { key: `uploads/${orgId}/0190a0b0-0000-7000-8000-00000000beef` };
    const encoded = Buffer.from(JSON.stringify(policy)).toString('base64');
    const forged = {
      ...permission,
      fields: {
        ...permission.fields,
        key: policy.conditions[0].key,
        Policy: encoded,
        'X-Amz-Signature': createHmac('sha256', PUBLIC_SIGNING_SECRET).update(encoded).digest('hex'),
      },
    };
    expect((await upload(forged, Buffer.from('overwritten'))).status).toBe(403);
  });

  it('generates each secret once, in PostgreSQL, and every replica uses it', async () => {
    const rows = await queryDatabase<{ name: string; value: string }>(
      environment.databaseUrl,
      'SELECT name, value FROM deployment_secrets ORDER BY name',
    );
    expect(rows.map((row) => row.name)).toEqual([
      'credentials_key',
      'end_user_token_secret',
      'storage_signing_secret',
    ]);
    expect(rows.find((row) => row.name === 'storage_signing_secret')!.value).not.toBe(PUBLIC_SIGNING_SECRET);
    expect(Buffer.from(rows.find((row) => row.name === 'credentials_key')!.value, 'base64')).toHaveLength(32);
    // End-user tokens are signed with 32 random bytes of this deployment's own.
    expect(
      Buffer.from(rows.find((row) => row.name === 'end_user_token_secret')!.value, 'base64url'),
    ).toHaveLength(32);

    // A permission signed by one replica is honoured by the other replica's storage host.
    const permission = (await client.get<Permission>('/chat/files/upload?filename=b.txt&mimetype=text/plain'))
      .body;
    const second = api(gateways[1].url!, key);
    const secondHost = new URL(
      (await second.get<Permission>('/chat/files/upload?filename=c.txt&mimetype=text/plain')).body.url,
    );
    expect(secondHost.port).not.toBe(new URL(permission.url).port);
    const crossed = await upload(
      { ...permission, url: `${secondHost.origin}/upload` },
      Buffer.from('agreed'),
    );
    expect(crossed.status).toBe(204);
  });

  it('re-encrypts credentials stored under the former public key with the deployment key', async () => {
    const [row] = await queryDatabase<{ credentials_encrypted: string }>(
      environment.databaseUrl,
      'SELECT credentials_encrypted FROM connections WHERE id = $1',
      [legacyConnectionId],
    );
    const [secret] = await queryDatabase<{ value: string }>(
      environment.databaseUrl,
      `SELECT value FROM deployment_secrets WHERE name = 'credentials_key'`,
    );
    const deploymentKey = Buffer.from(secret.value, 'base64');
    expect(row.credentials_encrypted.startsWith(`v1:${keyIdOf(deploymentKey)}:`)).toBe(true);
    expect(() => decryptWith(PUBLIC_CREDENTIALS_KEY, row.credentials_encrypted)).toThrow();
    expect(decryptWith(deploymentKey, row.credentials_encrypted)).toEqual({ access_token: 'old-token-123' });
  });

  it('stores new credentials under the deployment key, never the public one', async () => {
    const created = await client.post('/dc/connections?user_id=alice', {
      name: 'drive',
      kind: 'googledrive',
      credentials: { access_token: 'fresh-token-456' },
    });
    expect(created.status).toBe(200);
    const [row] = await queryDatabase<{ credentials_encrypted: string }>(
      environment.databaseUrl,
      'SELECT credentials_encrypted FROM connections WHERE id = $1',
      [created.body.id],
    );
    expect(row.credentials_encrypted).not.toContain(`v1:${keyIdOf(PUBLIC_CREDENTIALS_KEY)}:`);
    expect(() => decryptWith(PUBLIC_CREDENTIALS_KEY, row.credentials_encrypted)).toThrow();
  });

  it('a bad secret setting stops the process without echoing the value', async () => {
    const value = 'too-short-secret';
    const failed = await run(process.execPath, [appScript('admin'), 'agents:list', '--org', 'x'], {
      env: { ...environment.env, STORAGE_SIGNING_SECRET: 'short1', CREDENTIALS_KEYS: value },
    }).catch((error: { code: number; stderr: string }) => error);
    expect('code' in failed && failed.code).toBe(1);
    expect((failed as { stderr: string }).stderr).toMatch(
      /Invalid setting (STORAGE_SIGNING_SECRET|CREDENTIALS_KEYS)/,
    );
    expect((failed as { stderr: string }).stderr).not.toContain(value);
    expect((failed as { stderr: string }).stderr).not.toContain('short1');
  });
});
