import { randomBytes } from 'node:crypto';
import { Provider } from '@nestjs/common';
import { DeploymentSecretRepository } from '@app/persistence';

/** The HMAC key of end-user tokens: the deployment's own, generated on first start and kept in PostgreSQL. */
export const END_USER_TOKEN_SECRET = Symbol('END_USER_TOKEN_SECRET');

export const endUserTokenSecretProvider: Provider = {
  provide: END_USER_TOKEN_SECRET,
  inject: [DeploymentSecretRepository],
  useFactory: (secrets: DeploymentSecretRepository): Promise<string> =>
    secrets.findOrCreate('end_user_token_secret', randomBytes(32).toString('base64url')),
};
