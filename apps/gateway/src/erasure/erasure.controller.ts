import { Readable } from 'node:stream';
import { Body, Delete, Get, Header, HttpCode, Param, Put, StreamableFile } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  getSchemaPath,
} from '@nestjs/swagger';
import {
  ConnectionResponse,
  ConversationFileResponse,
  ErasureAcceptedResponse,
  MemoryFileResponse,
  ErasureParams,
  ErasureResponse,
  FeedbackResponse,
  MessageResponse,
  PutRetentionDto,
  RetentionResponse,
  RoutineResponse,
  ThreadSummaryResponse,
  UserBudgetResponse,
  UserParams,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ReadOneRoute } from '../routes/resource-routes';
import { ExportLine, ExportUser } from './export-user.use-case';
import { GetErasure, RequestErasure } from './request-erasure.use-case';
import { RetentionSettings } from './retention.use-case';

/** The models a line's `data` is one of: the shapes the API answers elsewhere. */
const EXPORTED_MODELS = [
  ThreadSummaryResponse,
  MessageResponse,
  ConversationFileResponse,
  MemoryFileResponse,
  RoutineResponse,
  FeedbackResponse,
  UserBudgetResponse,
  ConnectionResponse,
];

const EXPORT_LINE_SCHEMA = {
  type: 'object',
  required: ['kind', 'data'],
  properties: {
    kind: {
      type: 'string',
      enum: ['thread', 'message', 'file', 'memory_file', 'routine', 'feedback', 'budget', 'connection'],
    },
    data: {
      description: 'The object as the API answers it elsewhere; a thread also says whether it is archived.',
      oneOf: [
        {
          allOf: [
            { $ref: getSchemaPath(ThreadSummaryResponse) },
            { type: 'object', properties: { archived: { type: 'boolean' } } },
          ],
        },
        ...EXPORTED_MODELS.slice(1).map((model) => ({ $ref: getSchemaPath(model) })),
      ],
    },
  },
};

/** An end user's erasure and export, and the organization's retention of threads (CONTRACTS §20). */
@ServiceApiController('end users')
export class ErasureController {
  constructor(
    private readonly requestErasure: RequestErasure,
    private readonly getErasure: GetErasure,
    private readonly exportUser: ExportUser,
    private readonly retention: RetentionSettings,
  ) {}

  @Delete('users/:user_id')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Erase everything of an end user',
    description:
      'Deletes for good, in the background, every thread, message, run event, file (with its stored bytes), ' +
      'share link, memory file, routine, connection and its sources, feedback, budget, idempotency record and ' +
      'webhook delivery of this end user in the organization; a live reply is cancelled first, and usage is kept under no ' +
      'end user. While an erasure of the user runs, the same erasure_id is answered; afterwards a new erasure ' +
      'starts, which finds nothing. Webhook event user.erased when done.',
  })
  @ApiAcceptedResponse({ type: ErasureAcceptedResponse })
  erase(@CurrentCaller() caller: Caller, @Param() params: UserParams): Promise<ErasureAcceptedResponse> {
    return this.requestErasure.execute(caller, params.user_id);
  }

  @ReadOneRoute(
    'erasures/:erasure_id',
    {
      summary: 'The receipt of an erasure',
      description: 'Counts of what was removed, by kind; the end user is named by a hash only.',
    },
    ErasureResponse,
  )
  erasure(@CurrentCaller() caller: Caller, @Param() params: ErasureParams): Promise<ErasureResponse> {
    return this.getErasure.execute(caller, params.erasure_id);
  }

  @Get('users/:user_id/export')
  @ApiOperation({
    summary: 'Export everything of an end user',
    description:
      'NDJSON, one {"kind", "data"} object a line, streamed: each thread followed by its messages, then files ' +
      '(with a signed download url), memory files, routines, feedback, the budget and connections. An unknown ' +
      'user: no lines.',
  })
  @ApiExtraModels(...EXPORTED_MODELS)
  @ApiOkResponse({ content: { 'application/x-ndjson': { schema: EXPORT_LINE_SCHEMA } } })
  @Header('content-type', 'application/x-ndjson')
  @Header('cache-control', 'no-store')
  export(@CurrentCaller() caller: Caller, @Param() params: UserParams): StreamableFile {
    return new StreamableFile(Readable.from(ndjson(this.exportUser.execute(caller, params.user_id))), {
      type: 'application/x-ndjson',
    });
  }

  @Get('settings/retention')
  @ApiOperation({ summary: "The organization's retention of threads" })
  @ApiOkResponse({ type: RetentionResponse })
  getRetention(@CurrentCaller() caller: Caller): Promise<RetentionResponse> {
    return this.retention.get(caller);
  }

  @Put('settings/retention')
  @ApiOperation({
    summary: "Set the organization's retention of threads",
    description:
      'thread_days: a thread whose newest message is older than this many days (1 to 36500) is erased by a daily ' +
      'job, as an erasure erases it; null keeps threads for ever.',
  })
  @ApiOkResponse({ type: RetentionResponse })
  putRetention(@CurrentCaller() caller: Caller, @Body() body: PutRetentionDto): Promise<RetentionResponse> {
    return this.retention.put(caller, body);
  }
}

async function* ndjson(lines: AsyncGenerator<ExportLine>): AsyncGenerator<string> {
  for await (const line of lines) yield `${JSON.stringify(line)}\n`;
}
