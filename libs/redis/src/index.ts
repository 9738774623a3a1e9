export * from './redis.factory';
export * from './redis.module';
