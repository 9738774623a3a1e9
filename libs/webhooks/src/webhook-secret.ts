import { randomBytes } from 'node:crypto';

/** A signing secret as Standard Webhooks spells it: `whsec_` + base64 of 32 random bytes (CONTRACTS §14). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
