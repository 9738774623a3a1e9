import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { appScript } from '../support/test-environment';

const run = promisify(execFile);

/** Runs the real admin CLI (CONTRACTS §1) and parses the one JSON object it prints. */
export async function admin<T = Record<string, unknown>>(env: NodeJS.ProcessEnv, args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [appScript('admin'), ...args], { env });
  return JSON.parse(stdout) as T;
}

/** Runs the admin CLI expecting failure; returns its exit code and stderr. */
export async function adminFails(
  env: NodeJS.ProcessEnv,
  args: string[],
): Promise<{ code: number; stderr: string; stdout: string }> {
  try {
    const { stdout } = await run(process.execPath, [appScript('admin'), ...args], { env });
    throw new Error(`admin ${args.join(' ')} succeeded: ${stdout}`);
  } catch (error) {
    const failure = error as { code?: number; stderr?: string; stdout?: string };
    if (typeof failure.code !== 'number') throw error;
    return { code: failure.code, stderr: failure.stderr ?? '', stdout: failure.stdout ?? '' };
  }
}

export interface OrgFixture {
  org: string;
  orgId: string;
  key: string;
  keyId: string;
}

/** An organization with a fresh `sk-svc-` key. */
export async function createOrg(
  env: NodeJS.ProcessEnv,
  org = `org-${Math.random().toString(36).slice(2, 10)}`,
): Promise<OrgFixture> {
  const created = await admin<{ id: string; org_id: string; key: string }>(env, [
    'keys:create',
    '--org',
    org,
  ]);
  return { org, orgId: created.org_id, key: created.key, keyId: created.id };
}

export interface AgentFixture {
  id: string;
  name: string;
  memory_namespace: string | null;
}

export async function createAgent(
  env: NodeJS.ProcessEnv,
  org: string,
  flags: string[] = [],
): Promise<AgentFixture> {
  return admin<AgentFixture>(env, [
    'agents:create',
    '--org',
    org,
    '--name',
    `agent-${Math.random().toString(36).slice(2, 8)}`,
    ...flags,
  ]);
}

/** Registers a stdio MCP server in the operator's catalogue (`mcp:register`), as agents then name it. */
export async function registerMcpServer(
  env: NodeJS.ProcessEnv,
  name: string,
  server: { command: string; args: string[] },
  envAllow: string[] = [],
): Promise<Record<string, unknown>> {
  return admin(env, [
    'mcp:register',
    '--name',
    name,
    '--command',
    server.command,
    '--args',
    JSON.stringify(server.args),
    ...(envAllow.length > 0 ? ['--env-allow', envAllow.join(',')] : []),
  ]);
}
