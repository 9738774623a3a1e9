import { TestDeployment } from '../support/deployment';
import { api } from '../support/http';
import { queryDatabase } from '../support/test-environment';
import { OpenStream } from './stream.support';

type Client = ReturnType<typeof api>;

/** An agent whose `clock` calls wait for a person; answers its id. */
export async function createCarefulAgent(client: Client): Promise<string> {
  const agent = await client.post('/agents', { name: 'Careful', approval_required: ['clock'] });
  expect(agent.status).toBe(200);
  return agent.body.id as string;
}

/** A new thread of `userId` with `agentId`; answers its id and its reply's. */
export async function startThread(client: Client, agentId: string, userId: string, content: string) {
  const started = await client.post('/chat', {
    message: { content },
    options: { agent_id: agentId, user_id: userId },
  });
  expect(started.status).toBe(200);
  return { threadId: started.body.id as string, replyId: started.body.messages[1].id as string };
}

/**
 * A reply of the deployment's agent saying `count` numbered words (w0, w1, …) `sleepMs` apart, slow enough to be
 * looked at while it streams, and its stream opened at once; answers the words too, to check the reply against.
 */
export async function startSlowReply(deployment: TestDeployment, count: number, sleepMs: number) {
  const words = Array.from({ length: count }, (_, index) => `w${index}`);
  const { replyId } = await startThread(
    deployment.client(),
    deployment.agentId,
    'u1',
    `/sleep ${sleepMs}\n/say ${words.join(' ')}`,
  );
  const stream = new OpenStream(`${deployment.url}/chat/messages/${replyId}/stream`, deployment.org.key);
  return { words, replyId, stream };
}

/**
 * The helpers of a file whose replies belong to end users, on a gateway and an organization its hooks start
 * (hence getters): the service client, a careful agent, a new thread, and a reply's stream as its user reads it.
 */
export function endUserReplies(gatewayUrl: () => string, key: () => string) {
  const client = () => api(gatewayUrl(), key());
  return {
    client,
    careful: () => createCarefulAgent(client()),
    start: (agentId: string, userId: string, content: string) =>
      startThread(client(), agentId, userId, content),
    streamOf: (replyId: string, userId: string) =>
      new OpenStream(`${gatewayUrl()}/chat/messages/${replyId}/stream?user_id=${userId}`, key()),
  };
}

/** The status a reply's row holds now, in the database at `databaseUrl`. */
export async function storedStatus(databaseUrl: string, replyId: string): Promise<string> {
  const [row] = await queryDatabase<{ status: string }>(
    databaseUrl,
    'SELECT status FROM messages WHERE id = $1',
    [replyId],
  );
  return row.status;
}
