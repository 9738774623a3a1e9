import { randomUUID } from 'node:crypto';
import { DataSource, QueryRunner } from 'typeorm';
import { MessageRepository, MIGRATIONS } from '@app/persistence';
import { useTestDatabase } from '../../support/test-database';

/**
 * The upgrade to message trees (CONTRACTS §19) on threads stored as plain sequences: each message follows the
 * one before it, the last is the active leaf, a summary names its last message, so every thread shows exactly
 * what it showed before; down drops the columns.
 */
describe('the message branches migration', () => {
  let runner: QueryRunner;
  // The migration's connection goes back before the database closes.
  afterAll(() => runner?.release());
  const database = useTestDatabase();
  let db: DataSource;
  const orgId = randomUUID();
  const agentId = randomUUID();
  const threadId = randomUUID();
  const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const summaryId = randomUUID();
  const migration = new (MIGRATIONS.find(
    (candidate) => candidate.name === 'MessageBranches1766600000000',
  )!)();

  beforeAll(async () => {
    db = database.db;
    runner = db.createQueryRunner();
    await migration.down(runner);
    await database.addOrganizations(orgId);
    await db.query(`INSERT INTO agents (id, org_id, name) VALUES ($1, $2, 'a')`, [agentId, orgId]);
    await db.query(
      `INSERT INTO threads (id, org_id, user_id, agent_id, name) VALUES ($1, $2, 'u', $3, 't')`,
      [threadId, orgId, agentId],
    );
    // Stored out of order: the chain follows positions, not insertion.
    for (const position of [2, 0, 3, 1]) {
      const role = position % 2 === 0 ? 'user' : 'assistant';
      await db.query(
        `INSERT INTO messages (id, thread_id, org_id, position, role, content, status, live, reply_to_id)
         VALUES ($1, $2, $3, $4, $5, $6, 'success', false, $7)`,
        [
          ids[position],
          threadId,
          orgId,
          position,
          role,
          `m${position}`,
          role === 'user' ? null : ids[position - 1],
        ],
      );
    }
    await db.query(
      `INSERT INTO thread_summaries (id, thread_id, message_id, through_position, summarized_messages, summary,
         summary_tokens) VALUES ($1, $2, $3, 1, 2, 's', 1)`,
      [summaryId, threadId, ids[3]],
    );
    await migration.up(runner);
  });

  it('chains each message to the one before it and makes the last the active leaf', async () => {
    const rows: { id: string; parent_id: string | null }[] = await db.query(
      'SELECT id, parent_id FROM messages WHERE thread_id = $1 ORDER BY position',
      [threadId],
    );
    expect(rows).toEqual(ids.map((id, index) => ({ id, parent_id: index === 0 ? null : ids[index - 1] })));
    const [thread] = await db.query('SELECT active_leaf_id FROM threads WHERE id = $1', [threadId]);
    expect(thread.active_leaf_id).toBe(ids[3]);
    const shown = await new MessageRepository(db).listActiveBranch(threadId);
    expect(shown.map((message) => message.content)).toEqual(['m0', 'm1', 'm2', 'm3']);
  });

  it('names the last summarized message of each summary', async () => {
    const [summary] = await db.query('SELECT through_message_id FROM thread_summaries WHERE id = $1', [
      summaryId,
    ]);
    expect(summary.through_message_id).toBe(ids[1]);
  });
});
