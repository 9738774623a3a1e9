import { onStackWithApps, timeUntil } from './support/chaos-stack';
import { onlyCompleted, settle, startConversation } from './support/conversations';
import { report } from './support/report';

/**
 * Issue #17 item 3: a PostgreSQL outage answers 503 with Retry-After (never 500) within a bounded time, and the
 * replies that were running when it stopped complete once it is back, without a tool call repeated.
 */
describe('PostgreSQL outage', () => {
  const deployment = onStackWithApps();

  it('answers 503 with Retry-After during a 10 s stop, and running replies complete after it', async () => {
    const { stack, gateway } = deployment;
    const client = stack.client();
    const running = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        startConversation(
          client,
          stack.agentId,
          `/tool clock {}\n/sleep 150\n/say reply ${i} keeps going across the stop`,
        ),
      ),
    );

    await stack.postgres.stop('fast');
    const outageStarted = Date.now();
    const answers = await Promise.all([
      client.post('/chat', {
        message: { content: '/say hi' },
        options: { agent_id: stack.agentId, user_id: 'u' },
      }),
      client.get('/chat?user_id=chaos-user'),
      client.get(`/chat/messages/${running[0]}/stream?after=0`).catch(() => undefined),
    ]);
    const answeredWithinMs = Date.now() - outageStarted;
    const healthStarted = Date.now();
    const health = await fetch(`${gateway.url}/health/ready`);
    const healthMs = Date.now() - healthStarted;

    for (const answer of answers.slice(0, 2)) {
      expect(answer!.status).toBe(503);
      expect(answer!.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(answer!.body).toEqual({ detail: expect.any(String) });
    }
    expect(answeredWithinMs).toBeLessThan(5000);
    expect(health.status).toBe(503);
    expect(healthMs).toBeLessThan(1000);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 10000 - (Date.now() - outageStarted))));
    await stack.postgres.restart();
    const readyAgainMs = await timeUntil(async () => (await fetch(`${gateway.url}/health/ready`)).ok);
    const writeAgainMs = await timeUntil(async () => {
      await startConversation(client, stack.agentId, '/say back');
      return true;
    });

    const counts = await settle(gateway.url!, stack.key, stack.env.DATABASE_URL!, running, 90000);
    report('postgres-outage', {
      fault: 'PostgreSQL stopped (fast shutdown) for 10 s, then started',
      load: '8 replies with a tool call and 150 ms between deltas running across the stop; 3 requests during it',
      counts,
      expectedErrors: 'POST /chat and GET /chat answered 503 with Retry-After during the stop',
      timings: {
        answeredWithinMs,
        healthAnsweredMs: healthMs,
        readyAfterRestartMs: readyAgainMs,
        writeAfterRestartMs: readyAgainMs + writeAgainMs,
      },
    });
    expect(counts).toEqual(onlyCompleted(8));
  });
});
