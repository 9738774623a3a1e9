import { MESSAGE_CONTENT_MAX_CHARS, PG_INTEGER_MAX } from '@app/contracts';
import { A2A_ERRORS, A2aError, invalidParams } from './a2a-errors';

/** The JSON-RPC methods of A2A v1.0 this endpoint serves. */
export type A2aMethod = 'SendMessage' | 'SendStreamingMessage' | 'GetTask' | 'CancelTask' | 'SubscribeToTask';
const METHODS: readonly string[] = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'CancelTask',
  'SubscribeToTask',
];

export interface A2aRequest {
  id: string | number;
  method: A2aMethod;
  params: Record<string, unknown>;
}

/** What a SendMessage or SendStreamingMessage asks. */
export interface A2aSend {
  /** The text parts, joined by newlines (so directives stay lines). */
  text: string;
  /** The `data` parts: approval decisions when the message answers a task that waits. */
  data: unknown[];
  contextId?: string;
  taskId?: string;
  /** `metadata.user_id` of the request or its message: the end user with a service key. */
  userId?: string;
  /** `metadata.agent_version` of the request or its message: the agent version the task runs, and where it was. */
  agentVersion?: { version: number; at: (string | number)[] };
  returnImmediately: boolean;
}

type Fields = Record<string, unknown>;
const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON-RPC 2.0 request of one of the methods; anything else is the JSON-RPC error that says what is wrong. */
export function parseA2aRequest(body: unknown): A2aRequest {
  if (!isFields(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string') {
    throw new A2aError(A2A_ERRORS.invalidRequest, 'Invalid Request: one JSON-RPC 2.0 request object');
  }
  if (typeof body.id !== 'string' && typeof body.id !== 'number') {
    throw new A2aError(A2A_ERRORS.invalidRequest, 'Invalid Request: id must be a string or a number');
  }
  if (!METHODS.includes(body.method)) {
    throw new A2aError(A2A_ERRORS.methodNotFound, `Method not found: ${body.method}`);
  }
  if (!isFields(body.params)) throw invalidParams('params must be an object');
  return { id: body.id, method: body.method as A2aMethod, params: body.params };
}

/** The `id` of GetTask, CancelTask and SubscribeToTask. */
export function taskIdOf(params: Fields): string {
  if (typeof params.id !== 'string' || !params.id) throw invalidParams('params.id (the task id) is required');
  return params.id;
}

export function parseSend(params: Fields): A2aSend {
  const message = params.message;
  if (!isFields(message)) throw invalidParams('params.message is required');
  if (!Array.isArray(message.parts) || message.parts.length === 0) {
    throw invalidParams('params.message.parts must hold at least one part');
  }
  const texts: string[] = [];
  const data: unknown[] = [];
  message.parts.forEach((part: unknown, index) => {
    if (isFields(part) && typeof part.text === 'string') texts.push(part.text);
    else if (isFields(part) && 'data' in part) data.push(part.data);
    else throw invalidParams(`params.message.parts[${index}] must be a text or a data part`);
  });
  const text = texts.join('\n');
  if (text.length > MESSAGE_CONTENT_MAX_CHARS) {
    throw invalidParams(`the message's text is longer than ${MESSAGE_CONTENT_MAX_CHARS} characters`);
  }
  // PostgreSQL cannot store a NUL character, as for any message.
  if (text.includes('\u0000')) throw invalidParams("the message's text holds a NUL character");
  const optionalId = (value: unknown, name: string): string | undefined => {
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string') throw invalidParams(`${name} must be a string`);
    return value;
  };
  const userIds = [params.metadata, message.metadata].map((metadata) =>
    isFields(metadata) ? optionalId(metadata.user_id, 'metadata.user_id') : undefined,
  );
  const configuration = isFields(params.configuration) ? params.configuration : {};
  const versions = [
    { metadata: params.metadata, at: ['params', 'metadata', 'agent_version'] },
    { metadata: message.metadata, at: ['params', 'message', 'metadata', 'agent_version'] },
  ].flatMap(({ metadata, at }) => {
    const version = isFields(metadata) ? metadata.agent_version : undefined;
    if (version === undefined || version === null) return [];
    if (!Number.isSafeInteger(version) || (version as number) < 1 || (version as number) > PG_INTEGER_MAX) {
      throw invalidParams('metadata.agent_version must be a whole number from 1');
    }
    return [{ version: version as number, at }];
  });
  return {
    text,
    data,
    contextId: optionalId(message.contextId, 'params.message.contextId'),
    taskId: optionalId(message.taskId, 'params.message.taskId'),
    userId: userIds[0] ?? userIds[1],
    agentVersion: versions[0],
    returnImmediately: configuration.returnImmediately === true,
  };
}
