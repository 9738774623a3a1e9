import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DIST } from '../support/test-environment';

/**
 * The gateway takes requests and queues runs; only the worker runs agents. So the gateway's module graph holds
 * none of the agent runtime (libs/agent with its tools, models and MCP clients): ~11 MiB of heap it need not
 * keep, nor mark at every full collection. A library's agent tools live in its own `tools` entry for this.
 */
it('loads no module of the agent runtime', async () => {
  const script =
    `require(${JSON.stringify(join(DIST, 'apps/gateway/src/gateway.module.js'))});` +
    'process.stdout.write(JSON.stringify(Object.keys(require.cache)));';
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], {
    env: { ...process.env, NODE_PATH: join(__dirname, '..', '..', 'node_modules') },
  });
  const loaded = JSON.parse(stdout) as string[];
  // The whole graph was loaded: the chat routes and the libraries whose tools moved out of their barrels.
  for (const part of [
    '/apps/gateway/src/chat/',
    '/libs/memory/src/',
    '/libs/skills/src/',
    '/libs/knowledge/src/',
  ])
    expect(loaded.some((file) => file.includes(part))).toBe(true);
  expect(loaded.filter((file) => file.includes('/libs/agent/src/'))).toEqual([]);
});
