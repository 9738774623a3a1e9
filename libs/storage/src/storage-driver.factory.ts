import { Settings } from '@app/config';
import { LocalDiskDriver } from './local-disk.driver';
import { S3Driver } from './s3.driver';
import { StorageDriver } from './storage-driver';

/** Address of the embedded storage host as clients reach it. */
export const storagePublicUrl = (settings: Settings): string =>
  settings.storagePublicUrl ?? `http://127.0.0.1:${settings.storagePort}`;

/** The driver STORAGE_DRIVER names, configured from the settings. */
export function createStorageDriver(settings: Settings): StorageDriver {
  if (settings.storageDriver === 's3') {
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
    signingSecret: settings.storageSigningSecret,
  });
}
