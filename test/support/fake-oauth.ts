import { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The token side of a fake store: refresh tokens it honours, access tokens it accepts, and the ones it
 * revoked. A refresh answers a new access token (expires_in 3600).
 */
export class FakeOAuth {
  readonly accessTokens = new Set<string>();
  readonly refreshTokens = new Set<string>();
  refreshes = 0;
  private issued = 0;

  grant(accessToken: string, refreshToken?: string): void {
    this.accessTokens.add(accessToken);
    if (refreshToken) this.refreshTokens.add(refreshToken);
  }

  /** The access token stops working (expired), the refresh token still works. */
  expire(accessToken: string): void {
    this.accessTokens.delete(accessToken);
  }

  /** Every token of the grant stops working, as when a user revokes the app's access. */
  revoke(refreshToken: string): void {
    this.refreshTokens.delete(refreshToken);
    this.accessTokens.clear();
  }

  authorized(request: IncomingMessage): boolean {
    const header = request.headers.authorization ?? '';
    return header.startsWith('Bearer ') && this.accessTokens.has(header.slice(7));
  }

  async token(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of request) body += chunk;
    const form = new URLSearchParams(body);
    this.refreshes++;
    if (
      form.get('grant_type') !== 'refresh_token' ||
      !this.refreshTokens.has(form.get('refresh_token') ?? '')
    ) {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }),
      );
      return;
    }
    const accessToken = `access-${++this.issued}-${Math.random().toString(36).slice(2, 8)}`;
    this.accessTokens.add(accessToken);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ access_token: accessToken, expires_in: 3600, token_type: 'Bearer' }));
  }
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}
