import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createOrg } from '../factories/admin';
import { AppProcess, freePort, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';

const ADMIN_PASSWORD = 'dashboard-pass-1';
const VERSION = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }
).version;
/** The commit `npm run build` (pretest) recorded beside the compiled code, which the deployment tag names. */
const COMMIT = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'dist', 'build-info.json'), 'utf8')) as {
    commit: string;
  }
).commit;
const basic = (credentials: string) => ({
  authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
});

describe('operations: health, metrics, OpenAPI, queue dashboard, shutdown', () => {
  let environment: TestEnvironment;
  let gateway: AppProcess;
  let withDashboard: AppProcess;
  let worker: AppProcess;
  let workerUrl: string;

  beforeAll(async () => {
    environment = await createTestEnvironment();
    const workerPort = await freePort();
    workerUrl = `http://127.0.0.1:${workerPort}`;
    [gateway, withDashboard, worker] = await Promise.all([
      startGateway(environment.env),
      startGateway(environment.env, { ADMIN_PASSWORD, ADMIN_USER: 'ops', DEPLOYMENT_TAG: 'blue-42' }),
      startWorker(environment.env, { WORKER_HEALTH_PORT: String(workerPort) }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([gateway?.stop(), withDashboard?.stop(), worker?.stop()]);
    await environment?.dispose();
  });

  describe('gateway health', () => {
    it('answers /health/live and /health/ready without a token', async () => {
      const live = await fetch(`${gateway.url}/health/live`);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${gateway.url}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({
        status: 'ok',
        info: { postgres: { status: 'up' }, redis: { status: 'up' } },
      });
    });

    it('counts the consumers of every queue on /health/workers', async () => {
      const workers = await fetch(`${gateway.url}/health/workers`);
      const body = (await workers.json()) as { status: string; consumers: Record<string, number> };
      expect(Object.keys(body.consumers).sort()).toEqual([
        'agent-run',
        'erasure',
        'routine-firing',
        'source-sync',
        'webhook-delivery',
      ]);
      for (const count of Object.values(body.consumers)) expect(count).toBeGreaterThanOrEqual(1);
      expect({ status: workers.status, body: body.status }).toEqual({ status: 200, body: 'ok' });
    });
  });

  describe('the runs KEDA scales workers on', () => {
    // What it counts is test/integration/queues/agent-run-outstanding.int-spec.ts; here, the route as KEDA reads it.
    it('answers /health/runs without a token, outstanding being waiting plus running', async () => {
      const response = await fetch(`${gateway.url}/health/runs`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, number>;
      expect(Object.keys(body).sort()).toEqual(['outstanding', 'running', 'waiting']);
      expect(body.outstanding).toBe(body.waiting + body.running);
    });
  });

  describe('metrics', () => {
    it('serves Prometheus text without a token, with request durations by route pattern', async () => {
      await fetch(`${gateway.url}/health/live`);
      await fetch(`${gateway.url}/no/such/route/123`);
      const response = await fetch(`${gateway.url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      const text = await response.text();
      expect(text).toMatch(
        /http_request_duration_seconds_bucket\{le="[^"]+",app="gateway",method="GET",route="\/health\/live",status="200"\} [1-9]/,
      );
      expect(text).toMatch(
        /http_request_duration_seconds_count\{[^}]*route="unmatched",status="404"\} [1-9]/,
      );
      expect(text).not.toContain('/no/such/route/123');
      expect(text).toMatch(/process_cpu_user_seconds_total\{app="gateway"\}/);
      expect(text).toContain('nodejs_eventloop_lag_seconds');
    });
  });

  describe('OpenAPI', () => {
    it('serves the document generated from the code at /openapi.json', async () => {
      const response = await fetch(`${gateway.url}/openapi.json`);
      expect(response.status).toBe(200);
      const document = (await response.json()) as {
        openapi: string;
        info: { title: string; version: string; 'x-deployment': Record<string, unknown> };
        paths: Record<string, unknown>;
        components: { securitySchemes: Record<string, unknown> };
        security: unknown[];
      };
      expect(document.openapi).toMatch(/^3\./);
      // The deployment tag: the package version and the commit the build was made from (one of this repository's).
      expect(COMMIT).toMatch(/^[0-9a-f]{7}$/);
      expect(() => execFileSync('git', ['cat-file', '-e', `${COMMIT}^{commit}`])).not.toThrow();
      expect(document.info).toMatchObject({ title: 'Parley', version: `${VERSION}+${COMMIT}` });
      const deployment = document.info['x-deployment'];
      expect(deployment).toEqual({
        tag: `${VERSION}+${COMMIT}`,
        commit: COMMIT,
        built_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      expect(Date.parse(deployment.built_at as string)).toBeLessThanOrEqual(
        Date.parse(deployment.started_at as string),
      );
      expect(document.components.securitySchemes['service-token']).toEqual({
        type: 'apiKey',
        in: 'header',
        name: 'x-service-token',
      });
      expect(document.security).toEqual([{ 'service-token': [] }]);
      expect(Object.keys(document.paths).length).toBeGreaterThan(0);
      // Health and metrics are operations routes, not the API.
      expect(Object.keys(document.paths)).not.toContain('/metrics');
    });

    it('reports DEPLOYMENT_TAG as the version when it is set', async () => {
      const document = (await (await fetch(`${withDashboard.url}/openapi.json`)).json()) as {
        info: { version: string; 'x-deployment': { tag: string; commit: string } };
      };
      expect(document.info.version).toBe('blue-42');
      expect(document.info['x-deployment']).toMatchObject({ tag: 'blue-42', commit: COMMIT });
    });

    it('serves a browsable page at /docs', async () => {
      const response = await fetch(`${gateway.url}/docs`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(await response.text()).toContain('swagger-ui');
    });
  });

  describe('queue dashboard', () => {
    it('is not mounted without ADMIN_PASSWORD, and says so', async () => {
      const off = await fetch(`${gateway.url}/admin/queues`);
      expect(off.status).toBe(404);
      expect(await off.json()).toEqual({
        detail: 'The queue dashboard is off: set ADMIN_PASSWORD (8 or more characters) to turn it on',
      });
      expect((await fetch(`${gateway.url}/admin/queues/api/queues`)).status).toBe(404);
      expect((await fetch(`${gateway.url}/admin/queues`, { headers: basic('admin:anything') })).status).toBe(
        404,
      );
    });

    it('asks for basic credentials', async () => {
      const response = await fetch(`${withDashboard.url}/admin/queues`);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
      expect(await response.json()).toEqual({ detail: expect.any(String) });
      expect(response.headers.get('x-request-id')).toBeTruthy();
    });

    it('refuses a wrong user or password', async () => {
      for (const credentials of ['ops:wrong-password', 'admin:dashboard-pass-1', 'ops:']) {
        const response = await fetch(`${withDashboard.url}/admin/queues/api/queues`, {
          headers: basic(credentials),
        });
        expect(response.status).toBe(401);
      }
    });

    it('shows the agent-run, source-sync, webhook-delivery, routine-firing and erasure queues with the right credentials', async () => {
      const page = await fetch(`${withDashboard.url}/admin/queues`, {
        headers: basic(`ops:${ADMIN_PASSWORD}`),
      });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const api = await fetch(`${withDashboard.url}/admin/queues/api/queues`, {
        headers: basic(`ops:${ADMIN_PASSWORD}`),
      });
      expect(api.status).toBe(200);
      const { queues } = (await api.json()) as { queues: { name: string }[] };
      expect(queues.map((queue) => queue.name).sort()).toEqual([
        'agent-run',
        'erasure',
        'routine-firing',
        'source-sync',
        'webhook-delivery',
      ]);
    });
  });

  describe('worker health listener', () => {
    it('answers /health/live', async () => {
      const response = await fetch(`${workerUrl}/health/live`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
    });

    it('is ready when PostgreSQL and Redis answer and the agent-run consumer runs', async () => {
      const response = await fetch(`${workerUrl}/health/ready`);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ postgres: 'up', redis: 'up' });
      expect(body.consumers).toMatchObject({ 'agent-run': 'running' });
      expect(response.status).toBe(200);
    });

    it('serves the worker metrics', async () => {
      const response = await fetch(`${workerUrl}/metrics`);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toMatch(/process_cpu_user_seconds_total\{app="worker"\}/);
      expect(text).toContain('# TYPE webhook_deliveries_total counter');
    });

    it('answers 404 elsewhere', async () => {
      expect((await fetch(`${workerUrl}/chat`)).status).toBe(404);
    });
  });

  describe('graceful shutdown', () => {
    it('on SIGTERM finishes the request in flight, then exits 0', async () => {
      const target = await startGateway(environment.env);
      const { key } = await createOrg(environment.env);
      const { port } = new URL(target.url!);
      const body = JSON.stringify({ name: 'during shutdown', content: 'still saved' });
      const half = Math.floor(body.length / 2);

      // A request whose body is still arriving when the signal comes.
      const socket = connect(Number(port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        `POST /agent_execution/query_templates?user_id=u HTTP/1.1\r\nhost: 127.0.0.1\r\n` +
          `x-service-token: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n` +
          body.slice(0, half),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));

      const started = Date.now();
      target.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(target.running).toBe(true);
      socket.write(body.slice(half));

      const code = await target.waitForExit();
      await closed;
      expect(code).toBe(0);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      // Its keep-alive connection is ended with the answer, so it does not hold the shutdown open.
      expect(answer.toLowerCase()).toContain('connection: close');
      expect(answer).toContain('"name":"during shutdown"');
      // The new connection is refused once it is gone.
      await expect(fetch(`${target.url}/health/live`)).rejects.toThrow();
    });
  });
});
