export * from './credential-cipher';
export * from './crypto.module';
export * from './credential-keys';
