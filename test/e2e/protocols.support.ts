import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OrgFixture } from '../factories/admin';
import { useDeployment } from '../support/deployment';
import { api } from '../support/http';
import { AppProcess } from '../support/processes';
import { TestEnvironment } from '../support/test-environment';

/** What a protocol's suite drives: a gateway and a worker, an organization, its builtin agent and a careful one. */
export interface ProtocolWorld {
  environment: TestEnvironment;
  gateway: AppProcess;
  org: OrgFixture;
  agentId: string;
  /** An agent that asks a person before every `clock` call. */
  carefulAgentId: string;
  service: ReturnType<typeof api>;
}

/** The suite's world, filled in by a beforeAll hook (and stopped after the suite) of the describe block it is called in. */
export function useProtocolWorld(): ProtocolWorld {
  const deployment = useDeployment({
    workers: 1,
    workerEnv: { WORKER_HEALTH_PORT: '0' },
    agent: true,
    timeoutMs: 120000,
  });
  const world = {} as ProtocolWorld;
  beforeAll(async () => {
    const service = deployment.client();
    const careful = await service.post('/agents', { name: 'Careful', approval_required: ['clock'] });
    Object.assign(world, {
      environment: deployment.environment,
      gateway: deployment.gateway,
      org: deployment.org,
      agentId: deployment.agentId,
      carefulAgentId: careful.body.id as string,
      service,
    });
  });
  return world;
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

/**
 * Expects the Parley thread `threadId` of `userId` to hold two exchanges, `/say first` then `/say second`, each
 * answered by what it said: what a protocol's follow-up in the same conversation must have stored.
 */
export async function expectFirstThenSecond(
  service: ReturnType<typeof api>,
  threadId: string,
  userId: string,
): Promise<void> {
  const thread = await service.get(`/chat/${threadId}?user_id=${userId}`);
  expect(thread.body.messages.map((message: { content: string }) => message.content)).toEqual([
    '/say first',
    'first',
    '/say second',
    'second',
  ]);
}
