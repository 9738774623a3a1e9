import { Module } from '@nestjs/common';
import { Settings } from '@app/config';
import { DeploymentSecretRepository } from '../repositories/deployment-secret.repository';
import { CredentialCipher } from './credential-cipher';
import { createCredentialCipher, RetireDevelopmentCredentialsKey } from './credential-keys';

const CIPHER = {
  provide: CredentialCipher,
  inject: [Settings, DeploymentSecretRepository],
  useFactory: createCredentialCipher,
};

/**
 * The cipher for secrets at rest (connection credentials, agents' MCP env and headers, webhook secrets), keyed by
 * CREDENTIALS_KEYS or the deployment's generated key.
 */
@Module({ providers: [CIPHER, RetireDevelopmentCredentialsKey], exports: [CIPHER] })
export class CredentialCipherModule {}
