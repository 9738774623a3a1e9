export * from './content-disposition';
export * from './local-disk.driver';
export * from './local-disk.store';
export * from './local-signing';
export * from './storage-driver';
export * from './storage-driver.factory';
export * from './storage.module';
