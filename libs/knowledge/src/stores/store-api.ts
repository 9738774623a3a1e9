import { StoreHttpOptions, storeFetch } from './store-http';
import { ConnectionRefusedError, TokenSource } from './store';

/**
 * Authorized calls to one store API at a configured base URL: a 401 refreshes the token once and retries;
 * a second 401 means the credentials no longer work.
 */
export class StoreApi {
  constructor(
    private readonly baseUrl: string,
    private readonly tokens: TokenSource,
    private readonly http: StoreHttpOptions,
  ) {}

  /** `path` relative to the base URL, or an absolute URL the store gave (next and delta links) under it. */
  url(path: string, query: Record<string, string | undefined> = {}): string {
    const base = this.baseUrl.replace(/\/+$/, '');
    const url = new URL(path.startsWith('http') ? path : `${base}${path}`);
    if (!url.href.startsWith(base)) throw new Error(`refusing a link outside ${base}`);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, value);
    return url.href;
  }

  async get(path: string, query: Record<string, string | undefined> = {}): Promise<Response> {
    const url = this.url(path, query);
    let response = await storeFetch(
      url,
      { headers: { authorization: `Bearer ${await this.tokens.current()}` } },
      this.http,
    );
    if (response.status !== 401) return response;
    await response.body?.cancel();
    response = await storeFetch(
      url,
      { headers: { authorization: `Bearer ${await this.tokens.refreshed()}` } },
      this.http,
    );
    if (response.status === 401) {
      await response.body?.cancel();
      throw new ConnectionRefusedError('the store refused the credentials (401) after a token refresh');
    }
    return response;
  }
}
