import { runEventKeys } from '@app/run-events';
import { onClusterDeployment } from './support/cluster-deployment';
import { onlyCompleted, readReply, startConversation, streamCounts } from './support/conversations';
import { report } from './support/report';

const REPLIES = 12;
const WORDS = Array.from({ length: 120 }, (_, i) => `w${i}`).join(' ');
/** 120 words, one every 200 ms: replies that stream for about 24 s, live through a reshard of thousands of slots. */
const LONG_REPLY = `/sleep 200\n/say ${WORDS}`;
/** Far above a reply's own time: a reply done within it got its lines live, not from a heartbeat's poll of its log. */
const HEARTBEAT_MS = 120000;

/**
 * Issue 47: `redis-cli --cluster reshard`, run as an operator runs it, moves the slot range that holds live
 * replies' logs and shard channels from one master to another while the replies stream. Every stream completes
 * with every word, no gap and no duplicate, within the replies' own time plus the reshard.
 */
describe('redis-cli --cluster reshard under live streams', () => {
  const deployment = onClusterDeployment({ STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) }, 1);

  /**
   * The master whose first slots hold at least two of the replies' channels with the fewest slots to move (the tool
   * moves a master's slots in order), and how many to move.
   */
  async function rangeToMove(slots: number[]): Promise<{ from: number; count: number }> {
    const { cluster } = deployment;
    const candidates = await Promise.all(
      (await cluster.masters()).map(async (port) => {
        const served = await cluster.slotsOf(port);
        const positions = slots
          .map((slot) => served.indexOf(slot))
          .filter((position) => position >= 0)
          .sort((a, b) => a - b);
        return { from: port, count: positions.length >= 2 ? positions[1] + 1 : Infinity };
      }),
    );
    return candidates.sort((a, b) => a.count - b.count)[0];
  }

  it('completes every live reply gap-free while the slots of their channels move to another master', async () => {
    const { cluster, stack, gateway } = deployment;
    const client = stack.client();
    const ids = await Promise.all(
      Array.from({ length: REPLIES }, () => startConversation(client, stack.agentId, LONG_REPLY)),
    );
    const started = Date.now();
    const completedAt = new Map<string, number>();
    const readings = ids.map((id) =>
      readReply(gateway.url!, stack.key, id, 150000).then((result) => {
        completedAt.set(id, Date.now());
        return result;
      }),
    );
    const slotOf = new Map(
      await Promise.all(
        ids.map(
          async (id) =>
            [id, await cluster.slotOf(runEventKeys(stack.env.REDIS_PREFIX!, id).channel)] as const,
        ),
      ),
    );
    const { from, count } = await rangeToMove([...slotOf.values()]);
    expect(count).toBeLessThan(Infinity);
    const movedSlots = new Set((await cluster.slotsOf(from)).slice(0, count));
    const moved = ids.filter((id) => movedSlots.has(slotOf.get(id)!));
    const to = (await cluster.masters()).find((port) => port !== from)!;
    // Mid-reply: some words out, most to come.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const reshardStarted = Date.now();
    await cluster.reshard(from, to, count);
    const reshardMs = Date.now() - reshardStarted;
    const results = await Promise.all(readings);
    const lastDoneAfterReshardMs = Math.max(...moved.map((id) => completedAt.get(id)! - reshardStarted));

    const counts = streamCounts(results);
    report('redis-cluster-reshard-cli', {
      fault: `redis-cli --cluster reshard of ${count} slots holding ${moved.length} live replies' channels to another master (3 masters, 3 replicas)`,
      load: `${REPLIES} replies of 120 words streaming over 24 s, read on a gateway with a 120 s heartbeat`,
      counts,
      expectedErrors: 'none',
      timings: { slotsMoved: count, reshardMs, lastDoneAfterReshardMs, totalMs: Date.now() - started },
    });
    for (const id of moved)
      expect(await cluster.masterOf(runEventKeys(stack.env.REDIS_PREFIX!, id).channel)).toBe(to);
    // The moved replies were live while their slots moved: none had completed when the reshard began.
    expect(moved.filter((id) => completedAt.get(id)! < reshardStarted)).toEqual([]);
    expect(counts).toEqual(onlyCompleted(REPLIES));
    // Every word once, in order: deltas of one step may travel joined in one line (CONTRACTS §5), so the text counts.
    for (const result of results) {
      const deltas = result.lines.filter((line) => line.type === 'text.delta');
      expect(
        deltas
          .map((line) => line.delta)
          .join('')
          .trim(),
      ).toBe(WORDS);
    }
    expect(Date.now() - started).toBeLessThan(HEARTBEAT_MS);
  }, 240000);
});
