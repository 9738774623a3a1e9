import { Module } from '@nestjs/common';
import { ExpiredKeysPurge } from './expired-keys.purge';

/** Upkeep of the Idempotency-Key store; routes opt in with `@SafelyRetried()`. */
@Module({ providers: [ExpiredKeysPurge] })
export class IdempotencyModule {}
