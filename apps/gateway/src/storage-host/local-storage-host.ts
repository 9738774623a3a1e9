import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { FastifyInstance } from 'fastify';
import { Settings } from '@app/config';
import { ConversationFileRepository } from '@app/persistence';
import { LocalDiskDriver, StorageDriver } from '@app/storage';
import { buildStorageHost } from './storage-host';

/**
 * Runs in the gateway. With STORAGE_DRIVER=local it starts the embedded storage host on STORAGE_PORT, so one
 * process (or `npm start`) serves uploads with no other service, and closes it on shutdown. With s3 it makes
 * sure the bucket exists.
 */
@Injectable()
export class LocalStorageHost implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(LocalStorageHost.name);
  private host: FastifyInstance | null = null;

  constructor(
    private readonly settings: Settings,
    private readonly storage: StorageDriver,
    private readonly files: ConversationFileRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!(this.storage instanceof LocalDiskDriver)) {
      await this.storage
        .prepare()
        .catch((error: Error) =>
          this.logger.warn({ err: error, bucket: this.settings.s3Bucket }, 'could not check the S3 bucket'),
        );
      return;
    }
    this.host = await buildStorageHost({
      dir: this.settings.storageDir,
      signingSecret: this.storage.signingSecret,
      maxBytes: this.settings.uploadMaxBytes,
      isRecorded: (key) => this.files.isRecordedAt(key),
    });
    await this.host.listen({ port: this.settings.storagePort, host: this.settings.host });
    this.logger.log(
      { port: this.settings.storagePort, dir: this.settings.storageDir },
      'storage host listening',
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.host?.close();
    this.host = null;
  }
}
