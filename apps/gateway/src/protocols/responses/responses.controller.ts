import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  StreamableFile,
  UseFilters,
} from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../../auth/current-caller.decorator';
import { EndUserTokenAllowed } from '../../auth/end-user-token-allowed.decorator';
import { ReplyStreamLimits } from '../../reply-stream/reply-stream-limits';
import { invalidProtocolInput } from '../ask-agent.use-case';
import { serverSentEvents, typedFrames } from '../server-sent-events';
import { CancelResponse } from './cancel-response.use-case';
import { CreateResponse } from './create-response.use-case';
import { GetResponse } from './get-response.use-case';
import { OpenAiErrorFilter } from './openai-error.filter';
import { ResponseEvents } from './response-events';
import { ResponseObject } from './response-translation';
import {
  ApiCancelResponse,
  ApiCreateResponse,
  ApiRetrieveResponse,
  ApiResponsesRoutes,
} from './responses.openapi';
import { resumeSeq } from '../resume-seq';

/**
 * The OpenAI Responses API (CONTRACTS §18) at /openai/v1, for any OpenAI SDK with `baseURL` pointed here.
 * A response is a reply; its events are the reply's run events translated. A key or an end-user token may call it.
 */
@ApiResponsesRoutes()
@UseFilters(OpenAiErrorFilter)
@Controller('openai/v1/responses')
export class ResponsesController {
  constructor(
    private readonly createResponse: CreateResponse,
    private readonly getResponse: GetResponse,
    private readonly cancelResponse: CancelResponse,
    private readonly events: ResponseEvents,
    private readonly limits: ReplyStreamLimits,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiCreateResponse()
  @EndUserTokenAllowed()
  async create(
    @CurrentCaller() caller: Caller,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ResponseObject | StreamableFile> {
    const { created, request } = await this.createResponse.execute(caller, body);
    if (request.stream)
      return serverSentEvents(await this.events.open(caller, created.id), typedFrames, reply, this.limits);
    if (request.background) return created;
    return this.events.final(caller, created.id);
  }

  @Get(':response_id')
  @ApiRetrieveResponse()
  @EndUserTokenAllowed()
  async retrieve(
    @CurrentCaller() caller: Caller,
    @Param('response_id') responseId: string,
    @Query('stream') stream: string | undefined,
    @Query('starting_after') startingAfter: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ResponseObject | StreamableFile> {
    if (stream !== 'true') return this.getResponse.execute(caller, responseId);
    const events = await this.events.open(caller, responseId, sequenceNumber(startingAfter));
    return serverSentEvents(events, typedFrames, reply, this.limits);
  }

  @Post(':response_id/cancel')
  @HttpCode(200)
  @ApiCancelResponse()
  @EndUserTokenAllowed()
  cancel(@CurrentCaller() caller: Caller, @Param('response_id') responseId: string): Promise<ResponseObject> {
    return this.cancelResponse.execute(caller, responseId);
  }
}

/** `starting_after`: a sequence_number the client already has (absent: from the first event). */
const sequenceNumber = (value: string | undefined): number =>
  resumeSeq(value, -1, (sent) =>
    invalidProtocolInput(['query', 'starting_after'], sent, 'starting_after must be a sequence_number'),
  );
