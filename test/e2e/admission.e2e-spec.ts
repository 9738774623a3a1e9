import { useDeployment } from '../support/deployment';
import { admissionProbesOf } from './admission.support';
import { numbered, OpenStream, until } from './stream.support';

/**
 * Admission control: past capacity a request that would start a reply is refused at once (503, Retry-After),
 * before anything is stored, and what was accepted runs to its end; once the backlog drains, requests are
 * accepted again. Capacity here is one worker slot and one run waiting for it.
 */
const deployment = useDeployment({
  // The event loop's delay is left out: on a shared test machine it says more about the neighbours.
  gatewayEnv: { ADMISSION_MAX_QUEUED_RUNS: '1', ADMISSION_MAX_EVENT_LOOP_DELAY_MS: '0' },
  workers: 1,
  workerEnv: { WORKER_HEALTH_PORT: '0', AGENT_RUN_CONCURRENCY: '1' },
  agent: true,
});

const slowReply = `/sleep 250\n/say ${Array.from({ length: 20 }, (_, index) => `w${index}`).join(' ')}`;

const probes = admissionProbesOf(deployment);
const { admission, storedThreads } = probes;
const startChat = (userId: string, content = slowReply) => probes.startChat(userId, content);

it('refuses a new reply in milliseconds past capacity, stores nothing for it, and accepts again once drained', async () => {
  // Each runs for 5 s: one takes the worker's only slot, the other waits for it.
  const [running, waiting] = await Promise.all([startChat('u-running'), startChat('u-waiting')]);
  expect([running.status, waiting.status]).toEqual([200, 200]);
  await until(async () => (await admission()).status === 503, 5000);
  expect((await admission()).body).toMatchObject({ admitting: false, queued_runs: 1 });

  const startedAt = performance.now();
  const refused = await startChat('u-refused');
  const elapsedMs = performance.now() - startedAt;
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('1');
  expect(refused.body).toEqual({ detail: 'Service at capacity; retry later' });
  expect(elapsedMs).toBeLessThan(250);
  expect(await storedThreads('u-refused')).toBe(0);

  // Both accepted replies run to their end: admission never takes back what it let in.
  for (const posted of [running, waiting]) {
    const replyId = (posted.body as { messages: { id: string }[] }).messages[1].id;
    const lines = numbered(
      await new OpenStream(`${deployment.url}/chat/messages/${replyId}/stream`, deployment.org.key).all(),
    );
    expect(lines.at(-1)).toMatchObject({ type: 'message.completed', message: { status: 'success' } });
  }

  await until(async () => (await admission()).status === 200, 5000);
  const accepted = await startChat('u-refused', '/say hello again');
  expect(accepted.status).toBe(200);
  expect(await storedThreads('u-refused')).toBe(1);
});
