import { useDeployment } from '../support/deployment';
import { AdmissionAnswer, admissionProbesOf } from './admission.support';
import { numbered, OpenStream, until } from './stream.support';

/**
 * Admission by how long runs wait for a worker: the workers report how long the runs they start had waited since
 * their replies were stored (the fastest of each quarter second), and the gateway refuses new replies while that
 * wait stands at ADMISSION_MAX_RUN_START_WAIT_MS or more. Here one worker slot and replies of 1.2 s each: the
 * second reply waits 1.2 s for the slot, the third 2.4 s. Only this figure decides (the other three are off).
 */
const deployment = useDeployment({
  gatewayEnv: {
    ADMISSION_MAX_QUEUED_RUNS: '0',
    ADMISSION_MAX_EVENT_LOOP_DELAY_MS: '0',
    ADMISSION_MAX_REPLY_START_MS: '0',
    ADMISSION_MAX_RUN_START_WAIT_MS: '300',
  },
  workers: 1,
  workerEnv: { WORKER_HEALTH_PORT: '0', AGENT_RUN_CONCURRENCY: '1' },
  agent: true,
});

const slowReply = '/sleep 300\n/say a b c d e';

const probes = admissionProbesOf(deployment);
const { admission, storedThreads } = probes;
const startChat = (userId: string, content = slowReply) => probes.startChat(userId, content);

it('refuses new replies while runs wait long for a worker, and admits again once they start at once', async () => {
  expect(await admission()).toMatchObject({ status: 200, body: { admitting: true, run_start_wait_ms: 0 } });
  const accepted = [await startChat('u-1'), await startChat('u-2'), await startChat('u-3')];
  expect(accepted.map((posted) => posted.status)).toEqual([200, 200, 200]);

  let closed: AdmissionAnswer['body'] | undefined;
  await until(async () => {
    const { status, body } = await admission();
    if (status === 503) closed = body;
    return closed !== undefined;
  }, 10000);
  expect(closed!.admitting).toBe(false);
  expect(closed!.run_start_wait_ms).toBeGreaterThanOrEqual(300);

  const refused = await startChat('u-refused');
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('1');
  expect(refused.body).toEqual({ detail: 'Service at capacity; retry later' });
  expect(await storedThreads('u-refused')).toBe(0);

  // What was let in runs to its end; then no run waits, and the figure, no longer fresh, refuses nothing.
  for (const posted of accepted) {
    const replyId = (posted.body as { messages: { id: string }[] }).messages[1].id;
    const lines = numbered(
      await new OpenStream(`${deployment.url}/chat/messages/${replyId}/stream`, deployment.org.key).all(),
    );
    expect(lines.at(-1)).toMatchObject({ type: 'message.completed', message: { status: 'success' } });
  }
  await until(async () => (await admission()).status === 200, 5000);
  expect((await startChat('u-refused', '/say hello again')).status).toBe(200);
  expect(await storedThreads('u-refused')).toBe(1);
});
