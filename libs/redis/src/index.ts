export * from './failover-safe-cluster';
export * from './redis.factory';
export * from './redis.module';
export * from './redis-probe';
export * from './redis-incidents';
