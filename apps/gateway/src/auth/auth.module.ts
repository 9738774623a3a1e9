import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyVerifier } from '@app/identity';
import { ServiceTokenGuard } from './service-token.guard';

@Module({
  providers: [ApiKeyVerifier, { provide: APP_GUARD, useClass: ServiceTokenGuard }],
  exports: [ApiKeyVerifier],
})
export class AuthModule {}
