import { queuePrefix, redisClusterNodes } from './redis.factory';

describe('redisClusterNodes', () => {
  it('reads the seed nodes and credentials of a redis-cluster:// URL', () => {
    expect(redisClusterNodes('redis-cluster://a:7000,b:7001,c')).toEqual({
      nodes: [
        { host: 'a', port: 7000 },
        { host: 'b', port: 7001 },
        { host: 'c', port: 6379 },
      ],
      username: undefined,
      password: undefined,
    });
    expect(redisClusterNodes('redis-cluster://app:p%40ss@a:7000,b:7001')).toMatchObject({
      username: 'app',
      password: 'p@ss',
      nodes: [
        { host: 'a', port: 7000 },
        { host: 'b', port: 7001 },
      ],
    });
  });

  it('leaves a plain Redis URL alone', () => {
    expect(redisClusterNodes('redis://127.0.0.1:6379')).toBeNull();
  });
});

describe('queuePrefix', () => {
  it('hash-tags the prefix on a cluster only', () => {
    expect(queuePrefix({ redisUrl: 'redis://r:6379', redisPrefix: 'agents' })).toBe('agents');
    expect(queuePrefix({ redisUrl: 'redis-cluster://a:1,b:2', redisPrefix: 'agents' })).toBe('{agents}');
  });
});
