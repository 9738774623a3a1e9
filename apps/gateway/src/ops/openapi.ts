import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { existsSync, readFileSync } from 'node:fs';
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

/**
 * The OpenAPI document generated from the controllers and DTOs, at /openapi.json, with Swagger UI at /docs.
 * Built on first request: a decorator problem in one area then breaks the document, not the gateway.
 */
export function setupOpenApi(app: NestFastifyApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Parley')
    .setDescription('Conversational agent service: chat threads, agent runs, JSONL reply streams.')
    .setVersion(serviceVersion())
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
      return finishDocument(SwaggerModule.createDocument(app, config));
    },
    {
      jsonDocumentUrl: 'openapi.json',
      raw: ['json'],
    },
  );
}
