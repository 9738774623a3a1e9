/**
 * What the second wall (row-level security, CONTRACTS §21) costs a conversation. The gateway statements of one
 * conversation (POST /chat's thread, user message and reply in one statement; the stream's check that the
 * caller may see the reply; a thread read as GET /chat/{id} does) run alternately as they are and inside a tenant
 * transaction (withTenant: the role and `parley.org_id` set local to a transaction, the policies evaluated), on
 * one pooled connection (each request's statements in a transaction of its own, as the repositories run them), BENCH_ROUNDS rounds of BENCH_CONVERSATIONS each. Reported per conversation: this
 * process's CPU (the driver's work), PostgreSQL's backend CPU (from /proc), and wall time; medians of the rounds.
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/row-level-security.js
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DataSource, EntityManager } from 'typeorm';
import { loadSettings } from '@app/config';
import {
  dataSourceOptions,
  MessageRepository,
  Scope,
  ThreadEntity,
  ThreadRepository,
  withTenant,
} from '@app/persistence';
import { createBenchEnvironment, median, runBenchmark } from './support';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/** User + system CPU of a process in ms, from /proc (PostgreSQL's backend serving our one connection). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

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

  /**
   * One conversation's gateway statements, each in the request that makes it: with `scoped`, each request's in a
   * tenant transaction of its own (as the repositories run them), else each alone as before the wall.
   */
  const conversation = async (scoped: boolean) => {
    const request = <T>(work: (db: EntityManager) => Promise<T>) =>
      scoped ? withTenant(db, scope, work) : work(db.manager);
    const thread = threads.build(scope, { agentId, name: 't', projectId: null, memoryNamespace: null });
    const { reply } = await request((tx) =>
      messages.startThread(
        thread,
        { message: content, reply: { agentId, maxSteps: 2 } },
        scoped ? tx : undefined,
      ),
    );
    await request((tx) =>
      tx.query(
        `SELECT m.id, m.live FROM messages m JOIN threads t ON t.id = m.thread_id
         WHERE m.id = $1 AND t.org_id = $2 AND t.user_id = $3 AND t.archived_at IS NULL`,
        [reply.id, orgId, scope.userId],
      ),
    );
    await request((tx) => tx.getRepository(ThreadEntity).findOneBy({ id: thread.id, orgId }));
  };
  const variants: Record<string, () => Promise<void>> = {
    'as before (no wall)': () => conversation(false),
    'each request in a tenant transaction': () => conversation(true),
  };

  const samples: Record<string, { client: number[]; server: number[]; wall: number[] }> = {};
  for (const name of Object.keys(variants)) samples[name] = { client: [], server: [], wall: [] };
  for (const name of Object.keys(variants)) for (let i = 0; i < 200; i++) await variants[name]();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(variants)) {
      const client0 = process.cpuUsage();
      const server0 = processCpuMs(pid);
      const wall0 = performance.now();
      for (let i = 0; i < CONVERSATIONS; i++) await run();
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
