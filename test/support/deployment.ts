import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { AgentFixture, createAgent, createOrg, OrgFixture } from '../factories/admin';
import { api } from './http';
import { AppProcess, START_TIMEOUT_MS, startGateway, startWorker } from './processes';
import { createTestEnvironment, TestEnvironment } from './test-environment';

/** Settings, or a function giving them once earlier hooks ran (a fake vendor's URL is known once it listens). */
type Settings = NodeJS.ProcessEnv | (() => NodeJS.ProcessEnv);

const settingsOf = (settings: Settings | undefined): NodeJS.ProcessEnv =>
  typeof settings === 'function' ? settings() : (settings ?? {});

export interface DeploymentOptions {
  /** The environment's settings: the migration's and every process's. */
  env?: Settings;
  /** Whether files are kept in a temporary folder of the deployment's own (STORAGE_DIR), removed at its end. */
  storageDir?: boolean;
  /** How many gateways run (default 1), each with `gatewayEnv`. */
  gateways?: number;
  gatewayEnv?: Settings;
  /** How many workers run (default 0), each with `workerEnv`. */
  workers?: number;
  workerEnv?: Settings;
  /** Whether an organization (with a service key) is made (default true), and a builtin agent of it. */
  org?: boolean;
  agent?: boolean;
  /** The start hook's timeout; by default a process's start deadline (it grows with the machine's load) and a minute. */
  timeoutMs?: number;
}

/**
 * One test file's deployment on real processes: a test environment of its own, a gateway and workers of the
 * compiled apps, an organization and its agent, started before the file's tests and stopped after them.
 */
export class TestDeployment {
  private started?: {
    storageDir?: string;
    environment: TestEnvironment;
    gateways: AppProcess[];
    workers: AppProcess[];
    org?: OrgFixture;
    agent?: AgentFixture;
    redis?: Redis;
  };

  constructor(private readonly options: DeploymentOptions) {}

  async start(): Promise<void> {
    const { gateways = 1, workers = 0, org = true, agent = false } = this.options;
    const storageDir = this.options.storageDir
      ? await mkdtemp(join(tmpdir(), 'parley-e2e-storage-'))
      : undefined;
    const storage = storageDir ? { STORAGE_DIR: storageDir } : {};
    const environment = await createTestEnvironment({ ...storage, ...settingsOf(this.options.env) });
    this.started = { storageDir, environment, gateways: [], workers: [] };
    await Promise.all([
      ...Array.from({ length: gateways }, () => this.startGateway()),
      ...Array.from({ length: workers }, () => this.startWorker()),
    ]);
    if (org) this.started.org = await createOrg(environment.env);
    if (agent) this.started.agent = await this.createAgent();
  }

  async stop(): Promise<void> {
    this.started?.redis?.disconnect();
    const processes = [...(this.started?.gateways ?? []), ...(this.started?.workers ?? [])];
    await Promise.all(processes.map((app) => app.stop()));
    await this.started?.environment.dispose();
    if (this.started?.storageDir) await rm(this.started.storageDir, { recursive: true, force: true });
  }

  private async startGateway(): Promise<void> {
    const gateway = await startGateway(this.environment.env, settingsOf(this.options.gatewayEnv));
    this.running().gateways.push(gateway);
  }

  private async startWorker(): Promise<void> {
    const worker = await startWorker(this.environment.env, settingsOf(this.options.workerEnv));
    this.running().workers.push(worker);
  }

  createOrg(): Promise<OrgFixture> {
    return createOrg(this.environment.env);
  }

  /** An agent made with the admin CLI, of the deployment's organization unless another is named. */
  createAgent(flags: string[] = [], org = this.org.org): Promise<AgentFixture> {
    return createAgent(this.environment.env, org, flags);
  }

  /** The HTTP client of the deployment's organization, or of `key` (an undefined one too: use api() for no key). */
  client(key = this.org.key): ReturnType<typeof api> {
    return api(this.url, key);
  }

  get environment(): TestEnvironment {
    return this.running().environment;
  }

  /** A connection to the deployment's Redis, made on first use and closed at the deployment's end. */
  get redis(): Redis {
    const started = this.running();
    started.redis ??= new Redis(started.environment.env.REDIS_URL!);
    return started.redis;
  }

  get storageDir(): string {
    return this.present(this.running().storageDir, 'storage folder');
  }

  /** The first gateway. */
  get gateway(): AppProcess {
    return this.present(this.running().gateways[0], 'gateway');
  }

  get gateways(): AppProcess[] {
    return this.running().gateways;
  }

  /** The first gateway's base URL. */
  get url(): string {
    return this.gateway.url!;
  }

  /** The first worker. */
  get worker(): AppProcess {
    return this.present(this.running().workers[0], 'worker');
  }

  get org(): OrgFixture {
    return this.present(this.running().org, 'organization');
  }

  /** The organization's builtin agent. */
  get agent(): AgentFixture {
    return this.present(this.running().agent, 'agent');
  }

  get agentId(): string {
    return this.agent.id;
  }

  private running() {
    if (!this.started) throw new Error('the deployment is used before its beforeAll hook started it');
    return this.started;
  }

  private present<T>(part: T | undefined, name: string): T {
    if (part === undefined) throw new Error(`this deployment has no ${name}: see its useDeployment options`);
    return part;
  }
}

/** A deployment started in a beforeAll hook and stopped in an afterAll hook of the describe block it is called in. */
export function useDeployment(options: DeploymentOptions = {}): TestDeployment {
  const deployment = new TestDeployment(options);
  beforeAll(() => deployment.start(), options.timeoutMs ?? START_TIMEOUT_MS + 60000);
  afterAll(() => deployment.stop());
  return deployment;
}
