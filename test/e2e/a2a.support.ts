import { randomUUID } from 'node:crypto';
import { Message, Part, Role, StreamResponse, Task } from '@a2a-js/sdk';
import {
  Client,
  ClientFactory,
  ClientFactoryOptions,
  createAuthenticatingFetchWithRetry,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';

/**
 * @a2a-js/sdk's client as another agent builds it: the Agent Card fetched from the agent's base URL, the JSON-RPC
 * transport it names, a Bearer credential on every request (the package's own authenticating fetch, over
 * `baseFetch`: a test may record what the gateway sent).
 */
export async function a2aClient(
  baseUrl: string,
  agentId: string,
  credential: string,
  baseFetch: typeof fetch = fetch,
): Promise<Client> {
  const fetchImpl = createAuthenticatingFetchWithRetry(baseFetch, {
    headers: async () => ({ Authorization: `Bearer ${credential}` }),
    shouldRetryWithHeaders: async () => undefined,
  });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  // The card is at <base>/.well-known/agent-card.json: the base ends with a slash.
  return factory.createFromUrl(`${baseUrl}/a2a/agents/${agentId}/`);
}

export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: '',
});

/** A user message, as the package's types spell one. */
export function userMessage(text: string, fields: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...fields,
  };
}

/** The text of a task's artifacts. */
export const artifactText = (task: Task): string =>
  task.artifacts
    .flatMap((artifact) => artifact.parts)
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('');

/** The `data` parts of a task's history, in order. */
export const historyData = (task: Task): Record<string, unknown>[] =>
  task.history
    .flatMap((message) => message.parts)
    .flatMap((part) =>
      part.content?.$case === 'data' ? [part.content.value as Record<string, unknown>] : [],
    );

/** The text chunks of a stream's artifact updates, in order. */
export const streamedText = (events: StreamResponse[]): string =>
  events
    .flatMap((event) =>
      event.payload?.$case === 'artifactUpdate' ? (event.payload.value.artifact?.parts ?? []) : [],
    )
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('');

export async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
