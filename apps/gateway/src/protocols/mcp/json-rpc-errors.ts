import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';

/** A JSON-RPC 2.0 error answer; `id` is null when the request's own id cannot be told (JSON-RPC §5). */
export interface JsonRpcErrorAnswer {
  jsonrpc: '2.0';
  error: { code: number; message: string };
  id: string | number | null;
}

export const jsonRpcError = (
  code: ErrorCode,
  message: string,
  id: string | number | null = null,
): JsonRpcErrorAnswer => ({ jsonrpc: '2.0', error: { code, message }, id });

/**
 * What POST /mcp answers a body that is not one JSON-RPC message: a batch (an array) or any other JSON value.
 * MCP's streamable HTTP transport takes one message per POST since revision 2025-06-18, which removed JSON-RPC
 * batching; refusing batches keeps "one request is one call" true for the rate limit and for every check made per
 * request, where a batch of 100 calls would have started 100 runs for one count.
 */
export const NOT_ONE_MESSAGE = jsonRpcError(
  ErrorCode.InvalidRequest,
  'Invalid Request: the body must be one JSON-RPC message; batches are not supported (MCP 2025-06-18)',
);

/** The id of a JSON-RPC request body, for an error answer that belongs to it; null when there is none. */
export function requestIdOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
