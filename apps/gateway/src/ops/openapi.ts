import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Settings } from '@app/config';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { finishDocument } from './openapi-finish';
import { describeRequestDtos } from './openapi-requests';

/** The scheme name controllers refer to with `@ApiSecurity('service-token')`. */
export const SERVICE_TOKEN_SCHEME = 'service-token';

/**
 * The version in the project's package.json, found by walking up from the compiled file (wherever the build
 * went) or from the working directory. Not imported: tsc would copy package.json into the build, and a
 * second package named `parley` under the project confuses jest.
 */
export function serviceVersion(starts: string[] = [__dirname, process.cwd()]): string {
  for (const start of starts) {
    for (let dir = start; ; dir = dirname(dir)) {
      const file = join(dir, 'package.json');
      if (existsSync(file)) {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'parley' && pkg.version) return pkg.version;
      }
      if (dirname(dir) === dir) break;
    }
  }
  return '0.0.0';
}

/** The document's introduction: what every operation shares. */
const DESCRIPTION = [
  'Conversational agent service: chat threads, agent runs, JSONL reply streams.',
  '',
  '**Authentication**: every call carries the header `x-service-token` with an API key (`sk-svc-…`), as is ' +
    'or after `Bearer `. A missing, malformed, unknown or revoked key answers 401.',
  '',
  '**End users**: calls act for one end user of the organization, named by `user_id` (`options.user_id` in ' +
    "chat bodies, a query parameter elsewhere). Another organization's or end user's resource answers 404, " +
    'exactly as a missing one.',
  '',
  '**Errors**: `{"detail": "<message>"}`, except 422, whose `detail` lists one item per failing field ' +
    '(`loc`, `msg`, `type`, `input`, `ctx`, as Pydantic reports them). Unknown body fields are ignored. ' +
    '429 and 503 carry `Retry-After`. Every answer carries `x-request-id`.',
  '',
  '**Replies**: `POST /chat` and `POST /chat/{thread_id}` answer at once with the assistant reply pending; ' +
    'follow it on `GET /chat/messages/{message_id}/stream` (JSONL, one line type per schema) or poll the thread.',
].join('\n');

/** What `info.x-deployment` says of the running gateway (CONTRACTS §16). */
export interface Deployment {
  tag: string;
  commit: string | null;
  built_at: string;
  started_at: string;
}

/**
 * The short commit of the checkout the compiled gateway sits in, or null outside one (an image without .git, or
 * no git installed).
 */
function checkoutCommit(): string | null {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], {
      cwd: __dirname,
      encoding: 'utf8',
      timeout: 2000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return commit || null;
  } catch {
    return null;
  }
}

/**
 * The deployment tag is DEPLOYMENT_TAG, else the package version and the short commit (`0.1.0+abc1234`).
 * `built_at` is when this file was compiled.
 */
export function deployment(settings: Settings, startedAt: Date): Deployment {
  const commit = checkoutCommit();
  const version = serviceVersion();
  return {
    tag: settings.deploymentTag ?? (commit ? `${version}+${commit}` : version),
    commit,
    built_at: statSync(__filename).mtime.toISOString(),
    started_at: startedAt.toISOString(),
  };
}

/**
 * The OpenAPI document generated from the controllers and DTOs, at /openapi.json, with Swagger UI at /docs.
 * Built on first request: a decorator problem in one area then breaks the document, not the gateway.
 */
export function setupOpenApi(app: NestFastifyApplication, settings: Settings): void {
  const running = deployment(settings, new Date());
  const config = new DocumentBuilder()
    .setTitle('Parley')
    .setDescription(DESCRIPTION)
    .setVersion(running.tag)
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    // Relative: the document describes the gateway that serves it, wherever it is reached.
    .addServer('/')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-service-token' }, SERVICE_TOKEN_SCHEME)
    .addSecurityRequirements(SERVICE_TOKEN_SCHEME)
    .build();
  SwaggerModule.setup(
    'docs',
    app,
    () => {
      describeRequestDtos(app);
      const document = finishDocument(SwaggerModule.createDocument(app, config));
      // DocumentBuilder has no way to add an extension to info.
      return { ...document, info: { ...document.info, 'x-deployment': running } };
    },
    {
      jsonDocumentUrl: 'openapi.json',
      raw: ['json'],
    },
  );
}
