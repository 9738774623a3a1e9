import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Settings } from '@app/config';
import { deploymentInfo } from './deployment';
import { finishDocument } from './openapi-finish';
import { describeRequestDtos } from './openapi-requests';

/** The scheme name controllers refer to with `@ApiSecurity('service-token')`. */
export const SERVICE_TOKEN_SCHEME = 'service-token';

/**
 * The OpenAPI document generated from the controllers and DTOs, at /openapi.json, with Swagger UI at /docs.
 * Built on first request: a decorator problem in one area then breaks the document, not the gateway. Its version
 * is the deployment tag, with the deployment's metadata beside it (`info.x-deployment`).
 */
export function setupOpenApi(app: NestFastifyApplication, settings: Settings): void {
  const deployment = deploymentInfo(settings);
  const built = new DocumentBuilder()
    .setTitle('Parley')
    .setDescription('Conversational agent service: chat threads, agent runs, JSONL reply streams.')
    .setVersion(deployment.tag)
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    // Relative: the document describes the gateway that serves it, wherever it is reached.
    .addServer('/')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-service-token' }, SERVICE_TOKEN_SCHEME)
    .addSecurityRequirements(SERVICE_TOKEN_SCHEME)
    .build();
  const config = { ...built, info: { ...built.info, 'x-deployment': deployment } };
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
