import { PgBouncer } from '../support/pgbouncer';
import { ChaosStack, timeUntil } from './support/chaos-stack';
import { onlyCompleted, settle, toolCallLoad } from './support/conversations';
import { report } from './support/report';

/**
 * Issue 36 item 4: the gateway and the worker reach the suite's own PostgreSQL through PgBouncer in transaction
 * mode; PgBouncer is killed under open-loop load and started again on the same port 3 s later. Every request is
 * answered 200 or 503, and every accepted reply completes, with no tool call repeated and no stream gap.
 */
describe('PgBouncer restarted under load', () => {
  let stack: ChaosStack;
  let bouncer: PgBouncer;

  beforeAll(async () => {
    stack = await ChaosStack.start();
    bouncer = await PgBouncer.start(stack.env.DATABASE_URL!);
    const throughBouncer = {
      DATABASE_URL: bouncer.url(stack.env.DATABASE_URL!),
      DATABASE_PREPARED_STATEMENTS: 'false',
      DATABASE_POOL_SIZE: '5',
    };
    await stack.startGateway(throughBouncer);
    await stack.startWorker({ ...throughBouncer, WORKER_HEALTH_PORT: '0' });
  }, 120000);

  afterAll(async () => {
    await stack?.dispose();
    await bouncer?.stop();
  });

  it('answers 200 or 503 throughout and completes every accepted reply', async () => {
    const load = toolCallLoad(stack, 'the restart');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await bouncer.kill();
    const killedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const killed = bouncer;
    bouncer = await PgBouncer.start(stack.env.DATABASE_URL!, [], killed.port);
    await killed.stop();
    const gatewayUrl = stack.gateways[0].url!;
    const readyAgainMs = await timeUntil(async () => (await fetch(`${gatewayUrl}/health/ready`)).ok);
    const readyAfterKillMs = Date.now() - killedAt;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const { started, refusals } = await load.stop();

    const counts = await settle(gatewayUrl, stack.key, stack.env.DATABASE_URL!, started, 90000);
    report('pgbouncer-restart', {
      fault: 'PgBouncer (transaction mode) SIGKILLed under load, started again on its port 3 s later',
      load: 'open loop: a conversation with a tool call every 100 ms, from 2 s before the kill to 2 s after ready',
      counts,
      expectedErrors: `answers other than 200, by status: ${JSON.stringify(refusals)} (503 expected)`,
      timings: { readyAfterKillMs, readyAfterRestartMs: readyAgainMs },
    });
    expect(Object.keys(refusals).filter((status) => status !== '503')).toEqual([]);
    expect(started.length).toBeGreaterThan(30);
    expect(counts).toEqual(onlyCompleted(started.length));
  }, 180000);
});
