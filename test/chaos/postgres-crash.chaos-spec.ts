import { onStackWithApps } from './support/chaos-stack';
import { expectRecoveryUnderLoad } from './support/fault-under-load';

/**
 * Issue 36 item 4: PostgreSQL crashed (`pg_ctl -m immediate`: no checkpoint, crash recovery on the next start)
 * under open-loop load. Every request is answered 200 or 503 (never a 500 or a dropped connection), and every
 * reply that was accepted completes once it is back, with no tool call repeated and no stream gap.
 */
describe('PostgreSQL crashed under load', () => {
  const deployment = onStackWithApps();

  it('answers 200 or 503 throughout and completes every accepted reply after crash recovery', async () => {
    const { stack } = deployment;
    await expectRecoveryUnderLoad(stack, {
      name: 'postgres-crash',
      description: 'PostgreSQL crashed (pg_ctl -m immediate) for 5 s under load, crash recovery on restart',
      across: 'the crash',
      inject: async () => {
        await stack.postgres.stop('immediate');
        const crashedAt = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 5000));
        await stack.postgres.restart();
        const restartedAt = Date.now();
        return (readyMs) => ({ outageMs: restartedAt - crashedAt, readyAfterRestartMs: readyMs });
      },
    });
  });
});
