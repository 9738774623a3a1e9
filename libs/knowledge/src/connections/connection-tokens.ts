import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Settings } from '@app/config';
import { toSourceResponse, webhookEvent } from '@app/contracts';
import {
  ConnectionEntity,
  ConnectionRepository,
  CredentialCipher,
  Scope,
  SourceRepository,
} from '@app/persistence';
import { ConnectionRefusedError, TokenSource } from '../stores/store';
import { StoreHttpError, StoreHttpOptions, storeFetch } from '../stores/store-http';

/** What a connection's credentials hold once decrypted. */
interface ConnectionCredentials {
  access_token: string;
  refresh_token?: string;
  /** ISO date-time the access token expires. */
  expires_at?: string;
}

/** A token this close to its expiry is refreshed before use. */
const REFRESH_MARGIN_MS = 60_000;

export const storeHttpOptions = (settings: Settings): StoreHttpOptions => ({
  timeoutMs: settings.storeRequestTimeoutMs,
  maxRetries: settings.storeMaxRetries,
  maxDelayMs: settings.storeRetryMaxDelayMs,
});

/**
 * Access tokens of connections: decrypted on use, refreshed through the vendor's token endpoint before they
 * expire (one process at a time, under a row lock), and a connection whose refresh is refused marked
 * inoperative with its sources stopped in `error` with a readable reason. Each call names the organization
 * whose connection it is (`scope`: the caller's on the gateway, the synced source's on the worker).
 */
@Injectable()
export class ConnectionTokens {
  private readonly logger = new Logger(ConnectionTokens.name);

  constructor(
    private readonly db: DataSource,
    private readonly settings: Settings,
    private readonly cipher: CredentialCipher,
    private readonly connections: ConnectionRepository,
    private readonly sources: SourceRepository,
  ) {}

  tokenSource(scope: Pick<Scope, 'orgId'>, connectionId: string): TokenSource {
    return {
      current: () => this.accessToken(scope, connectionId, false),
      refreshed: () => this.accessToken(scope, connectionId, true),
    };
  }

  /** A usable access token; `force` refreshes even a token that looks valid (the store answered 401). */
  async accessToken(scope: Pick<Scope, 'orgId'>, connectionId: string, force: boolean): Promise<string> {
    const connection = await this.connections.findById(scope, connectionId);
    if (!connection?.credentialsEncrypted)
      throw new ConnectionRefusedError('the connection has no credentials');
    if (connection.inoperative)
      throw new ConnectionRefusedError(connection.statusReason ?? 'the connection is inoperative');
    const credentials = this.cipher.decrypt<ConnectionCredentials>(connection.credentialsEncrypted);
    if (!force && !expiresSoon(connection)) return credentials.access_token;
    return this.db.transaction(async (tx) => {
      const locked = await this.connections.lockForUpdate(tx, scope, connectionId);
      if (!locked?.credentialsEncrypted)
        throw new ConnectionRefusedError('the connection has no credentials');
      const current = this.cipher.decrypt<ConnectionCredentials>(locked.credentialsEncrypted);
      // Another process refreshed it while this one waited for the lock.
      if (current.access_token !== credentials.access_token && !expiresSoon(locked))
        return current.access_token;
      if (!current.refresh_token) {
        throw force
          ? new ConnectionRefusedError('the store refused the access token and there is no refresh token')
          : new ConnectionRefusedError('the access token expired and there is no refresh token', 'expired');
      }
      const refreshed = await this.refresh(locked, current);
      locked.credentialsEncrypted = this.cipher.encrypt(refreshed);
      locked.expiresAt = refreshed.expires_at ? new Date(refreshed.expires_at) : null;
      locked.status = 'active';
      await this.connections.save(scope, locked, tx);
      this.logger.log({ connectionId }, 'connection token refreshed');
      return refreshed.access_token;
    });
  }

  /**
   * POST /dc/connections/{id}/check: refreshes the token when there is a refresh token, else asks the store
   * who the token belongs to. Sets checked_at; a refusal makes the connection inoperative.
   */
  async check(scope: Pick<Scope, 'orgId'>, connection: ConnectionEntity): Promise<ConnectionEntity> {
    if (connection.kind !== 'draganddrop') {
      try {
        const token = await this.accessToken(scope, connection.id, hasRefreshToken(this.cipher, connection));
        await this.probe(connection, token);
      } catch (error) {
        if (!(error instanceof ConnectionRefusedError)) throw error;
        await this.markInoperative(scope, connection.id, error.message, error.status);
        return (await this.connections.findById(scope, connection.id)) as ConnectionEntity;
      }
    }
    const fresh = (await this.connections.findById(scope, connection.id)) as ConnectionEntity;
    fresh.checkedAt = new Date();
    fresh.inoperative = false;
    fresh.status = 'active';
    fresh.statusReason = null;
    return this.connections.save(scope, fresh);
  }

  /** The connection stops working: status error, inoperative, and its sources' syncs stop with the reason. */
  async markInoperative(
    scope: Pick<Scope, 'orgId'>,
    connectionId: string,
    reason: string,
    status: 'expired' | 'error' = 'error',
  ): Promise<void> {
    const connection = await this.connections.findById(scope, connectionId);
    if (!connection) return;
    connection.status = status;
    connection.inoperative = true;
    connection.statusReason = reason;
    connection.checkedAt = new Date();
    await this.connections.save(scope, connection);
    await this.sources.failByConnection(
      scope,
      connectionId,
      `Connection "${connection.name}" is inoperative: ${reason}`,
      (failed) => webhookEvent('source.failed', { ...toSourceResponse(failed, connection) }),
    );
    this.logger.warn({ connectionId, reason }, 'connection inoperative');
  }

  private async refresh(
    connection: ConnectionEntity,
    credentials: ConnectionCredentials,
  ): Promise<ConnectionCredentials> {
    const google = connection.kind === 'googledrive';
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: credentials.refresh_token as string,
    });
    const clientId = google ? this.settings.googleClientId : this.settings.msClientId;
    const clientSecret = google ? this.settings.googleClientSecret : this.settings.msClientSecret;
    if (clientId) form.set('client_id', clientId);
    if (clientSecret) form.set('client_secret', clientSecret);
    if (!google) form.set('scope', 'https://graph.microsoft.com/.default offline_access');
    const response = await storeFetch(
      google ? this.settings.googleTokenUrl : this.settings.msTokenUrl,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      },
      storeHttpOptions(this.settings),
    );
    const body = (await response.json().catch(() => ({}))) as {
      access_token?: string;
      refresh_token?: string;
      expires_in?: number;
      error?: string;
      error_description?: string;
    };
    if (response.status === 400 || response.status === 401) {
      const why =
        [body.error, body.error_description].filter(Boolean).join(': ') || `status ${response.status}`;
      throw new ConnectionRefusedError(`the token endpoint refused the refresh (${why})`);
    }
    if (!response.ok || !body.access_token) {
      throw new StoreHttpError(response.status, response.url, JSON.stringify(body));
    }
    return {
      access_token: body.access_token,
      // Google keeps the refresh token; Microsoft rotates it.
      refresh_token: body.refresh_token ?? credentials.refresh_token,
      expires_at: body.expires_in ? new Date(Date.now() + body.expires_in * 1000).toISOString() : undefined,
    };
  }

  /** A cheap authorized call: who the token belongs to. */
  private async probe(connection: ConnectionEntity, token: string): Promise<void> {
    const url =
      connection.kind === 'googledrive'
        ? `${this.settings.googleDriveApiUrl.replace(/\/+$/, '')}/drive/v3/about?fields=user`
        : `${this.settings.msGraphApiUrl.replace(/\/+$/, '')}/me`;
    const response = await storeFetch(
      url,
      { headers: { authorization: `Bearer ${token}` } },
      storeHttpOptions(this.settings),
    );
    await response.body?.cancel();
    if (response.status === 401 || response.status === 403) {
      throw new ConnectionRefusedError(`the store refused the credentials (${response.status})`);
    }
    if (!response.ok) throw new StoreHttpError(response.status, url, '');
  }
}

function expiresSoon(connection: ConnectionEntity): boolean {
  return connection.expiresAt !== null && connection.expiresAt.getTime() - Date.now() < REFRESH_MARGIN_MS;
}

function hasRefreshToken(cipher: CredentialCipher, connection: ConnectionEntity): boolean {
  if (!connection.credentialsEncrypted) return false;
  return !!cipher.decrypt<ConnectionCredentials>(connection.credentialsEncrypted).refresh_token;
}
