import { randomUUID } from 'node:crypto';
import { useDeployment } from '../support/deployment';
import { AppProcess, startGateway } from '../support/processes';
import { queryDatabase } from '../support/test-environment';

/**
 * Issue 36 item 3: a write sent with an Idempotency-Key is done once, even when recording its answer fails or
 * its gateway dies right after the write committed. The faults are put in PostgreSQL itself: a trigger on the
 * statement that records an answer makes it fail, or hang while the test kills the gateway.
 */
const deployment = useDeployment({ agent: true });

const sql = (text: string, params: unknown[] = []) =>
  queryDatabase(deployment.environment.databaseUrl, text, params);

/** Makes the recording of an answer (the update that sets its status) run `body` first. */
async function onRecordingAnswer(body: string): Promise<void> {
  await sql(`CREATE OR REPLACE FUNCTION test_answer_fault() RETURNS trigger AS $$
             BEGIN ${body} RETURN NEW; END $$ LANGUAGE plpgsql`);
  await sql(`CREATE TRIGGER test_answer_fault BEFORE UPDATE ON idempotency_keys FOR EACH ROW
             WHEN (NEW.status_code IS NOT NULL) EXECUTE FUNCTION test_answer_fault()`);
}

const removeFault = () => sql(`DROP TRIGGER IF EXISTS test_answer_fault ON idempotency_keys`);

/** POST /chat with a key; plain fetch, since a 500 (the injected fault) is not an answer the document lists. */
async function startChat(baseUrl: string, name: string, key: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}/chat`, {
    method: 'POST',
    headers: {
      'x-service-token': deployment.org.key,
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: JSON.stringify({
      name,
      message: { content: '/say once' },
      options: { agent_id: deployment.agentId, user_id: 'u' },
    }),
  });
  return { status: response.status, body: await response.json() };
}

async function threadsNamed(name: string): Promise<string[]> {
  const rows = await sql(`SELECT id FROM threads WHERE name = $1`, [name]);
  return rows.map((row) => (row as { id: string }).id);
}

it('stores one thread when recording the answer fails after the write (a PostgreSQL blip)', async () => {
  const name = `blip ${randomUUID()}`;
  const key = randomUUID();
  await onRecordingAnswer(`RAISE EXCEPTION 'blip';`);
  try {
    const failed = await startChat(deployment.url, name, key);
    expect(failed.status).toBe(500);
  } finally {
    await removeFault();
  }
  const retried = await startChat(deployment.url, name, key);
  expect(retried.status).toBe(200);
  const stored = await threadsNamed(name);
  expect(stored).toEqual([retried.body.id]);
});

it('stores one thread when the gateway dies between the write and its answer, and a retry comes after the lease', async () => {
  const name = `crash ${randomUUID()}`;
  const key = randomUUID();
  await onRecordingAnswer(`PERFORM pg_sleep(3);`);
  let dying: AppProcess | undefined = await startGateway(deployment.environment.env);
  try {
    const request = startChat(dying.url!, name, key).catch(() => null);
    // The request has written and is recording its answer (sleeping in the trigger) when its gateway dies, and
    // its connection with it: the statement never completes.
    const recording = `FROM pg_stat_activity
      WHERE datname = current_database() AND query LIKE 'UPDATE idempotency_keys%' AND state = 'active'`;
    const deadline = Date.now() + 10000;
    while ((await sql(`SELECT pid ${recording}`)).length === 0) {
      if (Date.now() > deadline) throw new Error('the answer was never being recorded');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await dying.kill();
    dying = undefined;
    await sql(`SELECT pg_terminate_backend(pid) ${recording}`);
    await request;
  } finally {
    await dying?.kill();
    await removeFault();
  }
  // Past the lease (60 s), the key may be claimed again.
  await sql(`UPDATE idempotency_keys SET created_at = now() - interval '2 minutes' WHERE key = $1`, [key]);

  const retried = await startChat(deployment.url, name, key);
  expect(retried.status).toBe(200);
  expect(await threadsNamed(name)).toEqual([retried.body.id]);
});
