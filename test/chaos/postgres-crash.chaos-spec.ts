import { ChaosStack, timeUntil } from './support/chaos-stack';
import { onlyCompleted, settle, toolCallLoad } from './support/conversations';
import { report } from './support/report';

/**
 * Issue 36 item 4: PostgreSQL crashed (`pg_ctl -m immediate`: no checkpoint, crash recovery on the next start)
 * under open-loop load. Every request is answered 200 or 503 (never a 500 or a dropped connection), and every
 * reply that was accepted completes once it is back, with no tool call repeated and no stream gap.
 */
describe('PostgreSQL crashed under load', () => {
  let stack: ChaosStack;

  beforeAll(async () => {
    ({ stack } = await ChaosStack.startWithApps());
  });

  afterAll(() => stack?.dispose());

  it('answers 200 or 503 throughout and completes every accepted reply after crash recovery', async () => {
    const load = toolCallLoad(stack, 'the crash');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await stack.postgres.stop('immediate');
    const crashedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5000));
    await stack.postgres.restart();
    const restartedAt = Date.now();
    const gatewayUrl = stack.gateways[0].url!;
    const readyAgainMs = await timeUntil(async () => (await fetch(`${gatewayUrl}/health/ready`)).ok);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const { started, refusals } = await load.stop();

    const counts = await settle(gatewayUrl, stack.key, stack.env.DATABASE_URL!, started, 90000);
    report('postgres-crash', {
      fault: 'PostgreSQL crashed (pg_ctl -m immediate) for 5 s under load, crash recovery on restart',
      load: 'open loop: a conversation with a tool call every 100 ms, from 2 s before the crash to 2 s after ready',
      counts,
      expectedErrors: `answers other than 200, by status: ${JSON.stringify(refusals)} (503 expected)`,
      timings: { outageMs: restartedAt - crashedAt, readyAfterRestartMs: readyAgainMs },
    });
    expect(Object.keys(refusals).filter((status) => status !== '503')).toEqual([]);
    expect(started.length).toBeGreaterThan(30);
    expect(counts).toEqual(onlyCompleted(started.length));
  });
});
