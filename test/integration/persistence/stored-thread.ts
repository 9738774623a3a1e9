import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MessageRepository, Scope, ThreadRepository } from '@app/persistence';

/** A thread of `scope` with its first exchange, as POST /chat stores it, with an agent of its own. */
export async function storedThread(db: DataSource, scope: Scope) {
  const agentId = randomUUID();
  await db.query(
    `INSERT INTO agents (id, org_id, name, tools, mcp_servers) VALUES ($1, $2, 'a', '[]', '[]')`,
    [agentId, scope.orgId],
  );
  const threads = new ThreadRepository(db);
  const thread = threads.build(scope, { agentId, name: 't', projectId: null, memoryNamespace: null });
  const content = { content: 'hi', fileIds: [], sourceIds: null, documentIds: null, disabledTools: null };
  const exchange = await new MessageRepository(db).startThread(scope, thread, {
    message: content,
    reply: { agentId, maxSteps: 2 },
  });
  return { thread, ...exchange };
}

/** A run's end as its worker reports it: a success whose one step said `done`. */
export const doneOutcome = () => ({
  status: 'success' as const,
  content: 'done',
  errorCode: null,
  questions: null,
  structuredOutput: null,
  events: [],
  deltaLengths: [4],
});
