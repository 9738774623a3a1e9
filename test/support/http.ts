import { responseChecker } from './openapi-responses';

/**
 * A small JSON client for tests: every call returns status, headers and parsed body, after checking the answer
 * against the gateway's OpenAPI document (a mismatch fails the test that made the call).
 */
export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export function api(baseUrl: string, token?: string) {
  const call = async <T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<JsonResponse<T>> => {
    const url = `${baseUrl}${path}`;
    const response = await fetch(url, {
      method,
      headers: {
        ...(token ? { 'x-service-token': token } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    const checker = await responseChecker(baseUrl);
    const problem = checker?.problem(
      method,
      url,
      response.status,
      response.headers.get('content-type'),
      text,
    );
    if (problem) throw new Error(`Answer does not match the OpenAPI document: ${problem}`);
    return { status: response.status, headers: response.headers, body: parsed as T };
  };
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) =>
      call<T>('GET', path, undefined, headers),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('POST', path, body ?? {}, headers),
    put: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('PUT', path, body ?? {}, headers),
    delete: <T = any>(path: string, headers?: Record<string, string>) =>
      call<T>('DELETE', path, undefined, headers),
  };
}
