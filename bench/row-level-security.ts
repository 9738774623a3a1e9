/**
 * What the second wall (row-level security, CONTRACTS §21) costs a conversation. The gateway statements of one
 * conversation (POST /chat's agent read and insert, the stream's check that the caller may see the reply, a
 * thread read as GET /chat/{id} does: the prepared statements the repositories run) run three ways, alternated,
 * on one pooled connection: alone with no wall; each with its tenant setting in the same round trip
 * (runPreparedAsTenant, as the repositories run them now); each in a tenant transaction of its own (withTenant:
 * BEGIN, set_config, the statement, COMMIT). BENCH_ROUNDS rounds of BENCH_CONVERSATIONS each. Reported per
 * conversation: this process's CPU (the driver's work), PostgreSQL's backend CPU (from /proc), and wall time;
 * medians of the rounds.
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/row-level-security.js
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import {
  dataSourceOptions,
  declaredStatements,
  MessageRepository,
  PreparedStatement,
  preparedStatement,
  runPreparedAcrossTenants,
  runPreparedAsTenant,
  Scope,
  ThreadRepository,
  withTenant,
} from '@app/persistence';
import { benchNumbers, createBenchEnvironment, median, runBenchmark } from './support';

const { CONVERSATIONS, ROUNDS } = benchNumbers({ CONVERSATIONS: 1000, ROUNDS: 5 });

/** User + system CPU of a process in ms, from /proc (PostgreSQL's backend serving our one connection). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** A statement the repositories declared, by name: the bench runs the very text the service runs. */
function declared(name: string): PreparedStatement {
  const text = declaredStatements().get(name);
  if (!text) throw new Error(`no prepared statement ${name} is declared`);
  return { name, text };
}

/** A thread's row as POST /chat inserts it (the repository inserts its first exchange in the same statement). */
const INSERT_THREAD = preparedStatement({
  name: 'bench_insert_thread',
  text: `INSERT INTO threads (id, org_id, user_id, agent_id, name) VALUES ($1, $2, $3, $4, 't')`,
});
const THREAD_BY_ID = preparedStatement({
  name: 'bench_thread_by_id',
  text: `SELECT * FROM threads WHERE id = $1 AND org_id = $2`,
});

const cleanups: (() => Promise<unknown>)[] = [];
runBenchmark(cleanups, async () => {
  const environment = await createBenchEnvironment();
  cleanups.push(() => environment.dispose());
  const db = await new DataSource(
    dataSourceOptions(loadSettings({ DATABASE_URL: environment.databaseUrl }), 1),
  ).initialize();
  cleanups.push(() => db.destroy());
  const threads = new ThreadRepository(db);
  const messages = new MessageRepository(db);
  const [{ id: orgId }] = await db.query(
    `INSERT INTO organizations (id, name) VALUES (gen_random_uuid(), 'bench') RETURNING id`,
  );
  const [{ id: agentId }] = await db.query(
    `INSERT INTO agents (id, org_id, name, tools, mcp_servers) VALUES (gen_random_uuid(), $1, 'a', '[]', '[]') RETURNING id`,
    [orgId],
  );
  const [{ pid }] = await db.query(`SELECT pg_backend_pid() AS pid`);
  const scope: Scope = { orgId, userId: 'alice' };
  const content = { content: 'hi', fileIds: [], sourceIds: null, documentIds: null, disabledTools: null };
  const { reply } = await messages.startThread(
    scope,
    threads.build(scope, { agentId, name: 't', projectId: null, memoryNamespace: null }),
    { message: content, reply: { agentId, maxSteps: 2 } },
  );
  const findAgent = declared('agent_find_active');
  const visibleState = declared('chat_visible_message_state');

  type Run = (statement: PreparedStatement, values: unknown[]) => Promise<unknown>;
  const variants: Record<string, Run> = {
    'alone, no wall': (statement, values) => runPreparedAcrossTenants(db, statement, values),
    'with the tenant setting in the same round trip (as run now)': (statement, values) =>
      runPreparedAsTenant(db, scope, statement, values),
    'each in a tenant transaction of its own (withTenant)': (statement, values) =>
      withTenant(db, scope, (tx) => tx.query(statement.text, values)),
  };
  /** One conversation's gateway statements. */
  const conversation = async (run: Run) => {
    const threadId = randomUUID();
    await run(findAgent, [orgId, agentId]);
    await run(INSERT_THREAD, [threadId, orgId, scope.userId, agentId]);
    await run(visibleState, [reply.id, orgId, scope.userId]);
    await run(THREAD_BY_ID, [threadId, orgId]);
  };
  const samples: Record<string, { client: number[]; server: number[]; wall: number[] }> = {};
  for (const name of Object.keys(variants)) samples[name] = { client: [], server: [], wall: [] };
  for (const run of Object.values(variants)) for (let i = 0; i < 200; i++) await conversation(run);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(variants)) {
      const client0 = process.cpuUsage();
      const server0 = processCpuMs(pid);
      const wall0 = performance.now();
      for (let i = 0; i < CONVERSATIONS; i++) await conversation(run);
      const client = process.cpuUsage(client0);
      samples[name].client.push((client.user + client.system) / 1000 / CONVERSATIONS);
      samples[name].server.push((processCpuMs(pid) - server0) / CONVERSATIONS);
      samples[name].wall.push((performance.now() - wall0) / CONVERSATIONS);
    }
  }
  const ms = (values: number[]) => median(values).toFixed(3);
  console.log(`conversations per round: ${CONVERSATIONS}, rounds: ${ROUNDS} (medians, ms per conversation)`);
  console.log('| variant | client CPU | PostgreSQL CPU | wall |');
  console.log('|---|---|---|---|');
  for (const [name, sample] of Object.entries(samples))
    console.log(`| ${name} | ${ms(sample.client)} | ${ms(sample.server)} | ${ms(sample.wall)} |`);
});
