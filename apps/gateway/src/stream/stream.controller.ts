import { Controller, Get, Header, Param, Query, Res, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { EndUserTokenAllowed } from '../auth/end-user-token-allowed.decorator';
import { ApiCommonErrors, ApiErrors } from '../http/api-errors';
import { jsonlBody } from '../reply-stream/jsonl-body';
import { ReplyStreamLimits } from '../reply-stream/reply-stream-limits';
import { STREAM_LINE_SCHEMA, StreamLineModels } from './stream-lines';
import { StreamParams, StreamQuery } from './stream.dto';
import { OpenReplyStream } from '../reply-stream/open-reply-stream.use-case';

/** The reply stream (CONTRACTS §5): replay from the start or after `after`, then follow live. */
@ApiTags('chat')
@ApiSecurity('service-token')
@ApiCommonErrors()
@Controller('chat/messages')
export class StreamController {
  constructor(
    private readonly openReplyStream: OpenReplyStream,
    private readonly limits: ReplyStreamLimits,
  ) {}

  @EndUserTokenAllowed()
  @Get(':message_id/stream')
  @ApiProduces('application/jsonl')
  @ApiOperation({
    summary: "Stream an assistant reply's progress (JSONL)",
    description:
      'One JSON object a line (application/jsonl), each with seq (0, 1, 2, … without gaps) and type. A stream ' +
      'opened late or again replays every line from the start (or after ?after=<seq>) and then follows live; ' +
      'one opened after the end replays and closes. message.completed, holding the final Message, is always ' +
      'the last line. While nothing happens for 15 s a {"type": "heartbeat"} line (no seq) is written. The ' +
      'stream of a user message is its single message.completed line.',
  })
  @StreamLineModels()
  @ApiOkResponse({
    description: 'One line per event, each line one of the schemas below.',
    content: { 'application/jsonl': { schema: STREAM_LINE_SCHEMA } },
  })
  @ApiErrors([404])
  // Proxies must pass lines on as they come, not collect the body.
  @Header('cache-control', 'no-cache')
  @Header('x-accel-buffering', 'no')
  async stream(
    @CurrentCaller() caller: Caller,
    @Param() params: StreamParams,
    @Query() query: StreamQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile> {
    return jsonlBody(
      await this.openReplyStream.execute(caller, {
        messageId: params.message_id,
        after: query.after,
        userId: query.user_id,
      }),
      reply.raw,
      this.limits,
    );
  }
}
