import { EventEmitter } from 'node:events';
import { Cluster } from 'ioredis';
import { RedisIncidents } from './redis-incidents';

const QUIET_MS = 50;
const settle = () => new Promise((resolve) => setTimeout(resolve, QUIET_MS * 3));

function fakeCluster(masters: string[]): Cluster & { masters: string[] } {
  const cluster = new EventEmitter() as EventEmitter & { slots: string[][]; masters: string[] };
  cluster.masters = masters;
  Object.defineProperty(cluster, 'slots', {
    get: () => cluster.masters.map((master) => [master, 'replica']),
  });
  return cluster as unknown as Cluster & { masters: string[] };
}

describe('RedisIncidents', () => {
  let lines: { fields: Record<string, unknown>; msg: string }[];
  let incidents: RedisIncidents;

  beforeEach(() => {
    lines = [];
    incidents = new RedisIncidents(
      { warn: (fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg }) } as never,
      QUIET_MS,
    );
  });

  it('sums up a burst of errors from several connections in one line once they stop', async () => {
    for (let i = 0; i < 20; i++)
      incidents.error(i % 2 ? 'commands' : 'worker:agent-run', new Error('Connection is closed.'));
    incidents.error('bullmq', new Error('connect ECONNREFUSED 127.0.0.1:6379\n    at stack frame'));
    expect(lines).toEqual([]);
    await settle();
    expect(lines).toHaveLength(1);
    expect(lines[0].msg).toBe('redis connection interrupted');
    expect(lines[0].fields).toMatchObject({
      failedOver: [],
      errors: 21,
      errorKinds: { 'Connection is closed.': 20, 'connect ECONNREFUSED 127.0.0.1:6379': 1 },
    });
    expect(new Set(lines[0].fields.connections as string[])).toEqual(
      new Set(['commands', 'worker:agent-run', 'bullmq']),
    );
  });

  it('says which master failed over, from the slot map, with the jobs resumed and retried meanwhile', async () => {
    const cluster = fakeCluster(['a:1', 'a:1', 'b:2', 'c:3']);
    incidents.watchCluster(cluster);
    cluster.emit('refresh');
    incidents.retried('agent-run'); // outside an incident: its own line only, not counted
    cluster.emit('refresh');
    expect(lines).toEqual([]);

    cluster.masters = ['d:4', 'd:4', 'b:2', 'c:3'];
    incidents.error('commands', new Error('CLUSTERDOWN The cluster is down'));
    cluster.emit('refresh');
    incidents.resumed('agent-run');
    incidents.retried('agent-run');
    cluster.emit('refresh');
    await settle();
    expect(lines).toHaveLength(1);
    expect(lines[0].msg).toBe('redis master failed over');
    expect(lines[0].fields).toMatchObject({
      failedOver: [{ from: 'a:1', to: 'd:4', slots: 2 }],
      errors: 1,
      resumedJobs: { 'agent-run': 1 },
      retriedJobs: { 'agent-run': 1 },
    });
  });

  it('says what is pending at once when flushed (a stopping process)', () => {
    incidents.error('commands', new Error('Connection is closed.'));
    incidents.flush();
    expect(lines.map((line) => line.msg)).toEqual(['redis connection interrupted']);
  });
});
