import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';

/** What a protocol's suite drives: a gateway and a worker, an organization, its builtin agent and a careful one. */
export interface ProtocolWorld {
  environment: TestEnvironment;
  gateway: AppProcess;
  worker: AppProcess;
  org: OrgFixture;
  agentId: string;
  /** An agent that asks a person before every `clock` call. */
  carefulAgentId: string;
  service: ReturnType<typeof api>;
}

export async function startProtocolWorld(): Promise<ProtocolWorld> {
  const environment = await createTestEnvironment();
  const [gateway, worker] = await Promise.all([
    startGateway(environment.env),
    startWorker(environment.env, { WORKER_HEALTH_PORT: '0' }),
  ]);
  const org = await createOrg(environment.env);
  const agentId = (await createAgent(environment.env, org.org)).id;
  const service = api(gateway.url!, org.key);
  const careful = await service.post('/agents', { name: 'Careful', approval_required: ['clock'] });
  return { environment, gateway, worker, org, agentId, carefulAgentId: careful.body.id as string, service };
}

export async function stopProtocolWorld(world: ProtocolWorld | undefined): Promise<void> {
  await Promise.all([world?.gateway.stop(), world?.worker.stop()]);
  await world?.environment.dispose();
}

/** The guide's ```js example under that heading, pointed at the gateway at `gatewayUrl`. */
export function guideSnippet(heading: string, gatewayUrl: string): string {
  const guide = readFileSync(join(__dirname, '..', '..', 'docs', 'guide.md'), 'utf8');
  const section = guide.slice(guide.indexOf(heading));
  return /```js\n([\s\S]*?)^```$/m.exec(section)![1].replaceAll('http://127.0.0.1:3000', gatewayUrl);
}

/** Runs a guide snippet as an ES module from the checkout, with only PATH and `env`; its output lines. */
export async function runSnippet(snippet: string, env: Record<string, string>): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', snippet], {
    cwd: join(__dirname, '..', '..'),
    env: { PATH: process.env.PATH, ...env },
  });
  return stdout.trim().split('\n');
}
