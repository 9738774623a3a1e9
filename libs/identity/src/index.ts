export * from './api-key-secret';
export * from './api-key-verifier';
export * from './caller';
export * from './identity.module';
export * from './key-revocations';
export * from './manage-keys';
export * from './end-user-token';
