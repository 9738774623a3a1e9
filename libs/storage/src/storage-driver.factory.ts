import { randomBytes } from 'node:crypto';
import { Settings } from '@app/config';
import { DeploymentSecretRepository } from '@app/persistence';
import { LocalDiskDriver } from './local-disk.driver';
import { StorageDriver } from './storage-driver';

/** Address of the embedded storage host as clients reach it. */
export const storagePublicUrl = (settings: Settings): string =>
  settings.storagePublicUrl ?? `http://127.0.0.1:${settings.storagePort}`;

/**
 * STORAGE_SIGNING_SECRET, or when unset the deployment's own: generated on first start (256 random bits) and
 * kept in PostgreSQL, so every replica signs and verifies with the same key and no key is public.
 */
async function storageSigningSecret(
  settings: Settings,
  secrets: DeploymentSecretRepository,
): Promise<string> {
  return (
    settings.storageSigningSecret ??
    secrets.findOrCreate('storage_signing_secret', randomBytes(32).toString('base64url'))
  );
}

/**
 * The driver STORAGE_DRIVER names, configured from the settings. The S3 driver's SDK (some 20 MiB resident per
 * process) is loaded only when it is the one named.
 */
export async function createStorageDriver(
  settings: Settings,
  secrets: DeploymentSecretRepository,
): Promise<StorageDriver> {
  if (settings.storageDriver === 's3') {
    const { S3Driver } = await import('./s3.driver');
    return new S3Driver({
      bucket: settings.s3Bucket,
      region: settings.s3Region,
      endpoint: settings.s3Endpoint,
      publicEndpoint: settings.s3PublicEndpoint,
      accessKeyId: settings.s3AccessKeyId,
      secretAccessKey: settings.s3SecretAccessKey,
      forcePathStyle: settings.s3ForcePathStyle,
    });
  }
  return new LocalDiskDriver({
    dir: settings.storageDir,
    publicUrl: storagePublicUrl(settings),
    signingSecret: await storageSigningSecret(settings, secrets),
  });
}
