import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createAgent, createOrg } from '../../factories/admin';
import { api } from '../../support/http';
import { AppProcess, startGateway, startWorker } from '../../support/processes';
import { appScript } from '../../support/test-environment';
import { OwnedPostgres } from './owned-postgres';
import { OwnedRedis } from './owned-redis';

const run = promisify(execFile);

/**
 * One deployment on dependencies the suite owns: its own PostgreSQL cluster and redis-server on spare ports,
 * migrated, with an organization, a key and an agent; real gateway and worker processes started on demand.
 * Everything the suite kills is its own: the shared PostgreSQL and Redis are never touched.
 */
export class ChaosStack {
  readonly gateways: AppProcess[] = [];
  readonly workers: AppProcess[] = [];

  private constructor(
    readonly postgres: OwnedPostgres,
    readonly redis: OwnedRedis,
    readonly env: NodeJS.ProcessEnv,
    readonly key: string,
    readonly agentId: string,
  ) {}

  static async start(extraEnv: NodeJS.ProcessEnv = {}): Promise<ChaosStack> {
    const [postgres, redis] = await Promise.all([OwnedPostgres.start(), OwnedRedis.start()]);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      // The compiled apps may live outside the checkout (PARLEY_DIST): let them find its node_modules.
      NODE_PATH: join(__dirname, '..', '..', '..', 'node_modules'),
      DATABASE_URL: postgres.url('parley'),
      REDIS_URL: redis.url,
      REDIS_PREFIX: 'chaos',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      JOB_LOCK_MS: '2000',
      JOB_STALLED_INTERVAL_MS: '1000',
      RUN_SWEEP_INTERVAL_MS: '1000',
      RUN_SWEEP_AFTER_MS: '3000',
      ...extraEnv,
    };
    // A key given as undefined is left unset: the process then runs at its default (e.g. the job timers).
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
    await run(process.execPath, [appScript('admin', 'migrate.js')], { env });
    const org = await createOrg(env);
    const agent = await createAgent(env, org.org);
    return new ChaosStack(postgres, redis, env, org.key, agent.id);
  }

  /** A stack with a gateway and a worker at their default settings, as most chaos tests run; disposed if either fails. */
  static async startWithApps(): Promise<{ stack: ChaosStack; gateway: AppProcess }> {
    const stack = await ChaosStack.start();
    try {
      const gateway = await stack.startGateway();
      await stack.startWorker();
      return { stack, gateway };
    } catch (error) {
      await stack.dispose();
      throw error;
    }
  }

  async startGateway(extraEnv: NodeJS.ProcessEnv = {}): Promise<AppProcess> {
    const gateway = await startGateway(this.env, extraEnv);
    this.gateways.push(gateway);
    return gateway;
  }

  async startWorker(extraEnv: NodeJS.ProcessEnv = {}): Promise<AppProcess> {
    const worker = await startWorker(this.env, extraEnv);
    this.workers.push(worker);
    return worker;
  }

  client(gateway: AppProcess = this.gateways[0]) {
    return api(gateway.url!, this.key);
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.gateways, ...this.workers].map((app) => app.kill()));
    await this.redis.kill();
    await this.postgres.dispose();
  }
}

/**
 * In a describe: the stack with a gateway and a worker that ChaosStack.startWithApps starts, before the describe's
 * tests, and disposed after them. Its fields are set by the time the tests run.
 */
export function onStackWithApps(): { stack: ChaosStack; gateway: AppProcess } {
  const started = {} as { stack: ChaosStack; gateway: AppProcess };
  beforeAll(async () => {
    Object.assign(started, await ChaosStack.startWithApps());
  });
  afterAll(() => started.stack?.dispose());
  return started;
}

/** Polls until the check passes; returns the milliseconds it took, or fails after the timeout. */
export async function timeUntil(
  check: () => Promise<boolean>,
  timeoutMs = 30000,
  /** What is awaited, for the failure's message. */
  what = 'recovery',
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check().catch(() => false)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
