import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as kedaModels from '@kubernetes-models/keda';
import * as kubernetesModels from 'kubernetes-models';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..');

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/**
 * The Helm chart as CI checks it: deploy/helm/check.sh runs the real `helm lint --strict` and `helm template`
 * (default values, and every option on). Here the rendered manifests are read back and held to what the
 * processes need: their commands, probes on the health endpoints, the migrate hook, KEDA on the runs outstanding,
 * each workload's secrets; and every one of them is held to its schema (Kubernetes', KEDA's).
 */
let dir: string;
let defaults: Manifest[];
let allOptions: Manifest[];

const load = async (file: string) =>
  parseAllDocuments(await readFile(join(dir, file), 'utf8'))
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
const find = (manifests: Manifest[], kind: string, name: string) => {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (!found)
    throw new Error(`no ${kind} ${name} in ${manifests.map((m) => `${m.kind}/${m.metadata.name}`)}`);
  return found;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-helm-'));
  await run('bash', [join(ROOT, 'deploy', 'helm', 'check.sh'), dir], { timeout: 240000 });
  [defaults, allOptions] = await Promise.all([load('default.yaml'), load('all-options.yaml')]);
}, 250000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the Helm chart', () => {
  it('renders gateway and worker with their commands, settings and probes on the health endpoints', () => {
    const gateway = find(defaults, 'Deployment', 'parley-gateway').spec.template.spec.containers[0];
    expect(gateway.command).toEqual(['node', 'dist/apps/gateway/src/main.js']);
    expect(gateway.image).toBe('parley:0.1.0');
    // Ready once the app answers and while it does (503 + Retry-After in an outage), not while its dependencies
    // do; not while only the starting server answers.
    expect(gateway.readinessProbe.httpGet).toEqual({ path: '/health/serving', port: 'http' });
    expect(gateway.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect(gateway.envFrom).toEqual([{ configMapRef: { name: 'parley' } }]);
    const worker = find(defaults, 'Deployment', 'parley-worker').spec.template.spec.containers[0];
    expect(worker.command).toEqual(['node', 'dist/apps/worker/src/main.js']);
    expect(worker.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'health' });
    expect(worker.ports[0].containerPort).toBe(3002);
    const config = find(defaults, 'ConfigMap', 'parley').data!;
    expect(config).toMatchObject({ PORT: '3000', WORKER_HEALTH_PORT: '3002', DATABASE_POOL_SIZE: '10' });
    expect(find(defaults, 'Secret', 'parley').stringData).toEqual({
      DATABASE_URL: 'postgres://postgres@postgres:5432/agents',
      REDIS_URL: 'redis://redis:6379',
    });
    expect(find(defaults, 'PodDisruptionBudget', 'parley-gateway').spec.minAvailable).toBe(1);
    // Never minAvailable 1 on a tier KEDA may run with one replica: that blocks `kubectl drain`.
    expect(find(defaults, 'PodDisruptionBudget', 'parley-worker').spec).toMatchObject({ maxUnavailable: 1 });
    expect(find(defaults, 'PodDisruptionBudget', 'parley-worker').spec.minAvailable).toBeUndefined();
  });

  it('migrates in a pre-install/pre-upgrade Job that goes direct to PostgreSQL', () => {
    const job = find(allOptions, 'Job', 'parley-migrate');
    expect(job.metadata.annotations!['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    const container = job.spec.template.spec.containers[0];
    expect(container.command).toEqual(['node', 'dist/apps/admin/src/migrate.js']);
    const secretName = container.env[0].valueFrom.secretKeyRef.name;
    const secret = find(allOptions, 'Secret', secretName);
    // The hook's Secret exists before the Job: hooks run before the release's own objects are created.
    expect(Number(secret.metadata.annotations!['helm.sh/hook-weight'])).toBeLessThan(
      Number(job.metadata.annotations!['helm.sh/hook-weight']),
    );
    expect(secret.stringData!.DATABASE_MIGRATION_URL).toBe('postgres://parley@postgres:5432/agents');
  });

  it('scales workers with KEDA on the runs waiting and running, as the gateway counts them', () => {
    const scaled = find(allOptions, 'ScaledObject', 'parley-worker');
    expect(scaled.spec.scaleTargetRef.name).toBe('parley-worker');
    // Not a BullMQ list: waiting runs carry a fair-share priority, so they sit in a sorted set KEDA cannot count.
    expect(scaled.spec.triggers).toEqual([
      {
        type: 'metrics-api',
        metadata: {
          url: 'http://parley-gateway.default.svc:80/health/runs',
          format: 'json',
          valueLocation: 'outstanding',
          targetValue: '50',
        },
      },
    ]);
    // KEDA owns the worker count then, the HPA the gateway's.
    expect(find(allOptions, 'Deployment', 'parley-worker').spec.replicas).toBeUndefined();
    expect(find(allOptions, 'HorizontalPodAutoscaler', 'parley-gateway').spec.scaleTargetRef.name).toBe(
      'parley-gateway',
    );
    expect(find(allOptions, 'Deployment', 'parley-gateway').spec.replicas).toBeUndefined();
    const ingress = find(allOptions, 'Ingress', 'parley-gateway');
    expect(ingress.metadata.annotations!['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
  });

  it('gives each workload only the secrets it reads, the migration credentials only to the migrate Job', () => {
    const secretsOf = (manifests: Manifest[], kind: string, name: string) => {
      const container = find(manifests, kind, name).spec.template.spec.containers[0];
      expect(JSON.stringify(container.envFrom ?? [])).not.toContain('secretRef');
      return (container.env as { name: string; valueFrom?: { secretKeyRef?: { name: string } } }[])
        .filter((variable) => variable.valueFrom?.secretKeyRef)
        .map((variable) => variable.name);
    };
    for (const manifests of [defaults, allOptions]) {
      const gateway = secretsOf(manifests, 'Deployment', 'parley-gateway');
      const worker = secretsOf(manifests, 'Deployment', 'parley-worker');
      expect(gateway).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'ADMIN_PASSWORD']));
      expect(gateway).not.toEqual(expect.arrayContaining(['OPENAI_API_KEY']));
      expect(gateway).not.toContain('ANTHROPIC_API_KEY');
      expect(worker).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'OPENAI_API_KEY']));
      expect(worker).not.toContain('ADMIN_PASSWORD');
      expect(worker).not.toContain('INTERNAL_TOKEN');
      for (const keys of [gateway, worker]) expect(keys).not.toContain('DATABASE_MIGRATION_URL');
      expect(secretsOf(manifests, 'Job', 'parley-migrate')).toEqual([
        'DATABASE_URL',
        'DATABASE_MIGRATION_URL',
      ]);
    }
    // Nor does the release's shared Secret hold the migration credentials.
    expect(find(allOptions, 'Secret', 'parley').stringData!.DATABASE_MIGRATION_URL).toBeUndefined();
  });

  it("renders only manifests valid against their schema, Kubernetes' or KEDA's", () => {
    const invalid: string[] = [];
    for (const [file, manifests] of [
      ['default.yaml', defaults],
      ['all-options.yaml', allOptions],
    ] as const) {
      expect(manifests.length).toBeGreaterThan(0);
      for (const manifest of manifests) {
        const violation = schemaViolation(manifest);
        if (violation) invalid.push(`${file}: ${manifest.kind}/${manifest.metadata?.name}: ${violation}`);
      }
    }
    expect(invalid).toEqual([]);
  });

  it('passes the "restricted" Pod Security Standard in every pod, with a read-only root filesystem', () => {
    for (const manifests of [defaults, allOptions]) {
      const pods = manifests
        .filter((manifest) => ['Deployment', 'Job'].includes(manifest.kind))
        .map((manifest) => ({
          name: `${manifest.kind}/${manifest.metadata.name}`,
          spec: manifest.spec.template.spec,
        }));
      expect(pods.length).toBeGreaterThanOrEqual(3);
      for (const { name, spec } of pods) expect([name, restrictedViolations(spec)]).toEqual([name, []]);
    }
  });
});

interface ModelClass {
  apiVersion: string;
  kind: string;
  new (data: unknown): { validate(): void };
}

const isModelClass = (value: unknown): value is ModelClass =>
  typeof value === 'function' &&
  typeof (value as Partial<ModelClass>).apiVersion === 'string' &&
  typeof (value as Partial<ModelClass>).kind === 'string';

/**
 * The model classes of kubernetes-models (Kubernetes 1.33's OpenAPI schemas, plus API versions removed before
 * it, which therefore pass here too) and @kubernetes-models/keda (KEDA's CRDs), by "apiVersion kind". Neither
 * package looks a class up by apiVersion and kind, so this walks their exports (group, version, class). A class
 * given a schema has its own `validate()`, which throws naming every field that does not match it; the base
 * class's `validate()` does nothing, so a class without its own is left out, and a manifest of a kind with no
 * schema fails below rather than passing unchecked.
 */
const SCHEMAS = new Map<string, ModelClass>();
const collectSchemas = (exports: object) => {
  for (const value of Object.values(exports)) {
    if (isModelClass(value)) {
      if (Object.hasOwn(value.prototype, 'validate')) SCHEMAS.set(`${value.apiVersion} ${value.kind}`, value);
    } else if (typeof value === 'object' && value !== null) collectSchemas(value);
  }
};
collectSchemas(kubernetesModels);
collectSchemas(kedaModels);

/**
 * What is wrong with a manifest by the schema of its apiVersion and kind (each field's type, required fields,
 * enums, formats), or null when it matches. Unknown fields are not reported: Kubernetes' schemas allow them.
 */
function schemaViolation(manifest: Manifest): string | null {
  const model = SCHEMAS.get(`${manifest.apiVersion} ${manifest.kind}`);
  if (!model) return `no schema for apiVersion ${manifest.apiVersion}, kind ${manifest.kind}`;
  try {
    new model(manifest).validate();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Volume types the "restricted" Pod Security Standard allows. */
const RESTRICTED_VOLUMES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
];

/**
 * What a pod spec breaks of the "restricted" Pod Security Standard (Kubernetes 1.29: the baseline controls plus
 * non-root, no privilege escalation, RuntimeDefault seccomp, only NET_BIND_SERVICE added, restricted volume
 * types), and of this chart's own rule of a read-only root filesystem. Empty when it passes.
 */
function restrictedViolations(spec: any): string[] {
  const violations: string[] = [];
  const pod = spec.securityContext ?? {};
  for (const host of ['hostNetwork', 'hostPID', 'hostIPC']) if (spec[host]) violations.push(host);
  for (const volume of spec.volumes ?? []) {
    const type = Object.keys(volume).find((key) => key !== 'name');
    if (!RESTRICTED_VOLUMES.includes(type!)) violations.push(`volume ${volume.name}: ${type}`);
  }
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
    const own = container.securityContext ?? {};
    const at = (rule: string) => violations.push(`${container.name}: ${rule}`);
    if (own.privileged) at('privileged');
    if (own.allowPrivilegeEscalation !== false) at('allowPrivilegeEscalation must be false');
    if ((own.runAsNonRoot ?? pod.runAsNonRoot) !== true) at('runAsNonRoot must be true');
    if ((own.runAsUser ?? pod.runAsUser) === 0) at('runAsUser 0');
    const seccomp = (own.seccompProfile ?? pod.seccompProfile)?.type;
    if (!['RuntimeDefault', 'Localhost'].includes(seccomp)) at('seccompProfile must be RuntimeDefault');
    if (!(own.capabilities?.drop ?? []).includes('ALL')) at('capabilities must drop ALL');
    const added = (own.capabilities?.add ?? []).filter(
      (capability: string) => capability !== 'NET_BIND_SERVICE',
    );
    if (added.length > 0) at(`capabilities added: ${added}`);
    if (container.ports?.some((port: { hostPort?: number }) => port.hostPort)) at('hostPort');
    if (own.readOnlyRootFilesystem !== true) at('readOnlyRootFilesystem must be true');
  }
  return violations;
}
