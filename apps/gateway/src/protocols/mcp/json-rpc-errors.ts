import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { AtCapacityError } from '@app/contracts';

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

/**
 * An error a request handler answers with as it is: the SDK's server sends a thrown error's `code`, `message` and
 * `data` (an McpError would put "MCP error <code>: " before its message, and the client's McpError again).
 */
export class JsonRpcRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * A `tools/call` refused by admission control: nothing was stored. JSON-RPC's implementation-defined server error,
 * -32000, which this endpoint already answers its own refusals with (GET, DELETE) and A2A answers a service at
 * capacity with; `data.retry_after_seconds` says when to retry. It comes in the call's 200 answer: the transport
 * opened its stream before the call ran, and MCP clients read a call's failure from its JSON-RPC error (a non-2xx
 * is a failure of the transport to them).
 */
export const atCapacityRefusal = (error: AtCapacityError): JsonRpcRefusal =>
  new JsonRpcRefusal(-32000, error.message, { retry_after_seconds: error.retryAfterSeconds });
