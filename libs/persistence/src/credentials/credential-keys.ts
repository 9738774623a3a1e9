import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Settings } from '@app/config';
import { CredentialEnvelopeRepository } from '../repositories/credential-envelope.repository';
import { DeploymentSecretRepository } from '../repositories/deployment-secret.repository';
import { CredentialCipher } from './credential-cipher';

/**
 * The public development key that versions before issue 16 used when CREDENTIALS_KEYS was unset. Kept only to
 * recognize envelopes made with it and move them to the deployment's own key; it never encrypts.
 */
const RETIRED_DEVELOPMENT_KEY = 'cGFybGV5LWRldi1jcmVkZW50aWFscy1rZXktMDAwMDA=';

/**
 * CREDENTIALS_KEYS, or when unset the deployment's own key: 32 random bytes generated on first start and kept
 * in PostgreSQL, so every replica encrypts and decrypts alike and no key is public.
 */
export async function credentialsKeys(
  settings: Settings,
  secrets: DeploymentSecretRepository,
): Promise<string> {
  return (
    settings.credentialsKeys ?? secrets.findOrCreate('credentials_key', randomBytes(32).toString('base64'))
  );
}

export async function createCredentialCipher(
  settings: Settings,
  secrets: DeploymentSecretRepository,
): Promise<CredentialCipher> {
  return new CredentialCipher(await credentialsKeys(settings, secrets));
}

/**
 * At start, re-encrypts with the current key every credential still encrypted with the retired public
 * development key, so data stored by an earlier version keeps working and stops being readable by anyone
 * holding that key. Every replica may run it at once: each envelope is replaced only if still unchanged.
 */
@Injectable()
export class RetireDevelopmentCredentialsKey implements OnApplicationBootstrap {
  private readonly logger = new Logger(RetireDevelopmentCredentialsKey.name);

  constructor(
    private readonly cipher: CredentialCipher,
    private readonly envelopes: CredentialEnvelopeRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const retired = new CredentialCipher(RETIRED_DEVELOPMENT_KEY);
    if (this.cipher.encryptionKeyId === retired.encryptionKeyId) {
      this.logger.warn('CREDENTIALS_KEYS starts with the public development key: set a key of your own');
      return;
    }
    let moved = 0;
    for (const { connectionId, envelope } of await this.envelopes.listWithPrefix(retired.envelopePrefix)) {
      const reencrypted = this.cipher.encrypt(retired.decrypt(envelope));
      if (await this.envelopes.replace(connectionId, envelope, reencrypted)) moved++;
    }
    if (moved > 0)
      this.logger.log({ connections: moved }, 'credentials moved off the retired development key');
  }
}
