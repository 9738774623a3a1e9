import { PgBouncer } from '../support/pgbouncer';
import { ChaosStack } from './support/chaos-stack';
import { expectRecoveryUnderLoad } from './support/fault-under-load';

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
    await expectRecoveryUnderLoad(stack, {
      name: 'pgbouncer-restart',
      description: 'PgBouncer (transaction mode) SIGKILLed under load, started again on its port 3 s later',
      across: 'the kill',
      inject: async () => {
        await bouncer.kill();
        const killedAt = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 3000));
        const killed = bouncer;
        bouncer = await PgBouncer.start(stack.env.DATABASE_URL!, [], killed.port);
        await killed.stop();
        return (readyMs) => ({ readyAfterKillMs: Date.now() - killedAt, readyAfterRestartMs: readyMs });
      },
    });
  }, 180000);
});
