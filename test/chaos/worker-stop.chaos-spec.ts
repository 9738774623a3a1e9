import { AppProcess } from '../support/processes';
import { ChaosStack, timeUntil } from './support/chaos-stack';
import { duplicatedToolCalls, onlyCompleted, readReply, startConversation } from './support/conversations';
import { report } from './support/report';

/**
 * Issue #17 item 4 (worker half): a worker stopped by SIGTERM mid-reply hands the run back at once; the other
 * worker resumes it within moments (not after the job lock expires) and the stream goes on without a gap.
 */
/** When the worker logged that it started (or resumed) the reply's run, from its own log line's time. */
function resumedAt(worker: AppProcess, messageId: string): number | undefined {
  const line = worker.output
    .split('\n')
    .find((text) => text.includes(messageId) && text.includes('"run started"'));
  return line ? (JSON.parse(line) as { time: number }).time : undefined;
}

describe('Worker stopped mid-reply', () => {
  let stack: ChaosStack;
  let gateway: AppProcess;

  beforeAll(async () => {
    // A long lock, as in production: a resume that waited for its expiry would show in the timings.
    stack = await ChaosStack.start({ JOB_LOCK_MS: '30000', JOB_STALLED_INTERVAL_MS: '30000' });
    gateway = await stack.startGateway();
    await stack.startWorker();
    await stack.startWorker();
  });

  afterAll(async () => {
    await stack?.dispose();
  });

  it('hands the run back on SIGTERM and the other worker finishes it promptly', async () => {
    const client = stack.client();
    const words = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
    const reply = await startConversation(client, stack.agentId, `/tool clock {}\n/sleep 200\n/say ${words}`);
    const reading = readReply(gateway.url!, stack.key, reply, 60000);

    const running = () => stack.workers.find((worker) => worker.output.includes(reply));
    await timeUntil(async () => running() !== undefined, 20000);
    const stopped = running()!;
    const other = stack.workers.find((worker) => worker !== stopped)!;
    await new Promise((resolve) => setTimeout(resolve, 1500)); // mid-reply: a few words streamed

    const signalled = Date.now();
    const exitCode = await stopped.stop(15000);
    const exitedMs = Date.now() - signalled;
    await timeUntil(async () => resumedAt(other, reply) !== undefined, 20000);
    const resumedMs = resumedAt(other, reply)! - signalled;
    const result = await reading;
    const finishedMs = Date.now() - signalled;

    const seqs = result.lines.map((line) => line.seq);
    const counts = {
      completed: result.completed ? 1 : 0,
      lost: 0,
      stuck: result.completed ? 0 : 1,
      duplicatedToolCalls: await duplicatedToolCalls(stack.env.DATABASE_URL!, [reply]),
      streamGaps: result.gaps,
      streamDuplicates: result.duplicates,
    };
    report('worker-sigterm', {
      fault: 'SIGTERM to the worker running a reply (2 workers, JOB_LOCK_MS 30000)',
      load: '1 reply: a tool call then 30 words at 200 ms',
      counts,
      timings: { workerExitedMs: exitedMs, resumedOnOtherWorkerMs: resumedMs, replyCompletedMs: finishedMs },
    });
    expect(exitCode).toBe(0);
    expect(stopped.output).toContain('runs handed back');
    expect(counts).toEqual(onlyCompleted(1));
    expect(seqs).toEqual(seqs.map((_, i) => i));
    expect(result.lines.at(-1)).toMatchObject({ type: 'message.completed', message: { status: 'success' } });
    // The resumed run streams on after what was streamed: the reply's words appear once each.
    const content = (result.lines.at(-1) as unknown as { message: { content: string } }).message.content;
    expect(content.match(/\bw\d+\b/g)).toEqual(words.split(' '));
    // Far below the 30 s lock: the run was handed back, not recovered as stalled.
    expect(resumedMs).toBeLessThan(5000);
  });
});
