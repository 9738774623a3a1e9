import { Injectable } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { Settings } from '@app/config';
import { DeniedAddressError, egressRequest } from '@app/egress';

/** No answer within this long counts as a failure (CONTRACTS §14). */
const DELIVERY_TIMEOUT_MS = 10_000;

/** What one POST came to: the status when the endpoint answered, else why not. */
export interface SendResult {
  statusCode: number | null;
  error: string | null;
}

export interface SignedMessage {
  url: string;
  /** `whsec_…`. */
  secret: string;
  /** `webhook-id`: the event's id, the same on every retry. */
  eventId: string;
  body: string;
}

/**
 * POSTs one event, signed as Standard Webhooks says (webhook-id, webhook-timestamp, webhook-signature) by the
 * `standardwebhooks` library. The connection goes only to an address the egress guard checked, unless
 * WEBHOOK_ALLOW_PRIVATE; the response body is read and dropped.
 */
@Injectable()
export class WebhookSender {
  constructor(private readonly settings: Settings) {}

  async send(message: SignedMessage): Promise<SendResult> {
    const sentAt = new Date();
    const signature = new Webhook(message.secret).sign(message.eventId, sentAt, message.body);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Parley-Webhooks/1.0',
      'webhook-id': message.eventId,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signature,
    };
    try {
      const statusCode = await this.post(new URL(message.url), headers, message.body);
      return { statusCode, error: statusCode >= 200 && statusCode < 300 ? null : `HTTP ${statusCode}` };
    } catch (error) {
      if (error instanceof DeniedAddressError)
        return { statusCode: null, error: `refused: ${error.message}` };
      return { statusCode: null, error: (error as Error).message };
    }
  }

  private post(url: URL, headers: Record<string, string>, body: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = egressRequest(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        },
        this.settings.webhookAllowPrivate,
      );
      req.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      });
      req.on('error', (error) =>
        reject(
          error.name === 'AbortError' ? new Error(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`) : error,
        ),
      );
      req.end(body);
    });
  }
}
