import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyVerifier } from '@app/identity';
import { PasswordAttempts } from './password-attempts';
import { ServiceTokenGuard } from './service-token.guard';

@Module({
  providers: [ApiKeyVerifier, PasswordAttempts, { provide: APP_GUARD, useClass: ServiceTokenGuard }],
  exports: [ApiKeyVerifier, PasswordAttempts],
})
export class AuthModule {}
