import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Settings } from '@app/config';
import { deploymentInfo } from './deployment';
import { finishDocument } from './openapi-finish';
import { describeRequestDtos } from './openapi-requests';

/** The scheme name controllers refer to (through `@ServiceApiController`). */
export const SERVICE_TOKEN_SCHEME = 'service-token';

/** The document's introduction: what every operation shares. */
const DESCRIPTION = [
  'Conversational agent service: chat threads, agent runs, JSONL reply streams.',
  '',
  '**Authentication**: every call carries the header `x-service-token` with an API key (`sk-svc-…`), as is ' +
    'or after `Bearer ` (or `Authorization: Bearer <key>`). A missing, malformed, unknown or revoked key ' +
    'answers 401.',
  '',
  '**Front ends**: `POST /end-user-tokens` mints an `eut_…` token a browser may hold, sent like a key. It acts ' +
    'as one end user (its `user_id` is implied; another is 403) on the chat endpoints, the reply stream, the ' +
    'upload permission, `/ai-sdk/chat` (the Vercel AI SDK `useChat` protocol), the Responses API and `/mcp`; ' +
    'any other route answers it ' +
    '403. Expired or altered: 401; revoking the key revokes its tokens.',
  '',
  '**End users**: calls act for one end user of the organization, named by `user_id` (`options.user_id` in ' +
    "chat bodies, a query parameter elsewhere). Another organization's or end user's resource answers 404, " +
    'exactly as a missing one.',
  '',
  '**Errors**: `{"detail": "<message>"}` (OpenAI\'s `{"error": {…}}` under /openai/v1), except 422, whose ' +
    '`detail` lists one item per failing field ' +
    '(`loc`, `msg`, `type`, `input`, `ctx`, as Pydantic reports them). Unknown body fields are ignored. ' +
    '429 and 503 carry `Retry-After`. Every answer carries `x-request-id`.',
  '',
  '**Replies**: `POST /chat` and `POST /chat/{thread_id}` answer at once with the assistant reply pending; ' +
    'follow it on `GET /chat/messages/{message_id}/stream` (JSONL, one line type per schema) or poll the thread.',
].join('\n');

/**
 * The OpenAPI document generated from the controllers and DTOs, at /openapi.json, with Swagger UI at /docs.
 * Built on first request: a decorator problem in one area then breaks the document, not the gateway. Its version
 * is the deployment tag, with the deployment's metadata beside it (`info.x-deployment`).
 */
export function setupOpenApi(app: NestFastifyApplication, settings: Settings): void {
  const running = deploymentInfo(settings);
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
