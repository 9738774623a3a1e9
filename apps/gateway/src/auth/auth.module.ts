import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyVerifier } from '@app/identity';
import { endUserTokenSecretProvider, END_USER_TOKEN_SECRET } from './end-user-token.secret';
import { PasswordAttempts } from './password-attempts';
import { ServiceTokenGuard } from './service-token.guard';

@Module({
  providers: [
    ApiKeyVerifier,
    PasswordAttempts,
    endUserTokenSecretProvider,
    { provide: APP_GUARD, useClass: ServiceTokenGuard },
  ],
  exports: [ApiKeyVerifier, PasswordAttempts, END_USER_TOKEN_SECRET],
})
export class AuthModule {}
