import { randomUUID } from 'node:crypto';
import { onStackWithApps, timeUntil } from './support/chaos-stack';
import { onlyCompleted, settle, startConversation, threadCount } from './support/conversations';
import { report } from './support/report';

/** Issue #17 item 2: while Redis is down, writes and health fail fast and store nothing; retries are safe. */
describe('Redis outage', () => {
  const deployment = onStackWithApps();

  const chat = (content: string, idempotencyKey?: string) =>
    deployment.stack
      .client()
      .post(
        '/chat',
        { message: { content }, options: { agent_id: deployment.stack.agentId, user_id: 'chaos-user' } },
        idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
      );

  it('answers 503 with Retry-After at once, stores nothing, and a retry with the same key is safe', async () => {
    const { stack, gateway } = deployment;
    const databaseUrl = stack.env.DATABASE_URL!;
    const before = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        startConversation(stack.client(), stack.agentId, `/say before ${i}`),
      ),
    );

    await stack.redis.kill();
    const stored = await threadCount(databaseUrl);
    const key = randomUUID();
    const started = Date.now();
    const [refused, health, refusedAgain] = await Promise.all([
      chat('/tool clock {}\n/say after the outage', key),
      fetch(`${gateway.url}/health/ready`),
      chat('/say no key'),
    ]);
    const failedWithinMs = Date.now() - started;

    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.body).toEqual({ detail: expect.any(String) });
    expect(refusedAgain.status).toBe(503);
    expect(health.status).toBe(503);
    expect(failedWithinMs).toBeLessThan(1000);
    expect(await threadCount(databaseUrl)).toBe(stored);

    // A retry loop as a client would run it, honouring Retry-After's spirit at a faster pace.
    await stack.redis.restart();
    const outageEnd = Date.now();
    const recoveryMs = await timeUntil(async () => (await fetch(`${gateway.url}/health/ready`)).ok);
    let retried = await chat('/tool clock {}\n/say after the outage', key);
    while (retried.status === 503) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      retried = await chat('/tool clock {}\n/say after the outage', key);
    }
    const writeRecoveryMs = Date.now() - outageEnd;
    expect(retried.status).toBe(200);

    const replayed = await chat('/tool clock {}\n/say after the outage', key);
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(retried.body);
    expect(await threadCount(databaseUrl)).toBe(stored + 1);

    const reply = (retried.body as { messages: { id: string; role: string }[] }).messages.find(
      (message) => message.role === 'assistant',
    )!.id;
    const counts = await settle(gateway.url!, stack.key, databaseUrl, [...before, reply], 60000);
    report('redis-outage', {
      fault: 'redis-server SIGKILLed (data lost), restarted empty',
      load: '10 conversations before the fault, 3 requests during it, 1 retried with its Idempotency-Key',
      counts,
      expectedErrors: '3 × 503 with Retry-After during the outage (nothing stored)',
      timings: {
        refusedWithinMs: failedWithinMs,
        readyAgainMs: recoveryMs,
        writeAcceptedAgainMs: writeRecoveryMs,
      },
    });
    expect(counts).toEqual(onlyCompleted(11));
  });

  it('lets one of several concurrent duplicates run and refuses a key reused with another body', async () => {
    const databaseUrl = deployment.stack.env.DATABASE_URL!;
    const stored = await threadCount(databaseUrl);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 5 }, () => chat('/say once', key)));
    const statuses = answers.map((answer) => answer.status).sort();
    // Each duplicate either replays the first answer (200) or is told the first is still running (409).
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    const threadIds = new Set(
      answers.filter((answer) => answer.status === 200).map((answer) => (answer.body as { id: string }).id),
    );
    expect(threadIds.size).toBe(1);
    expect(await threadCount(databaseUrl)).toBe(stored + 1);

    const reused = await chat('/say something else', key);
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({
      detail: [
        expect.objectContaining({ loc: ['header', 'idempotency-key'], type: 'idempotency_key_reused' }),
      ],
    });
    expect(await threadCount(databaseUrl)).toBe(stored + 1);
  });
});
