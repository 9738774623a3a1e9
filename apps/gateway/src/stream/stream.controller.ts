import { Controller, Get, Header, Param, Query, Res, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { Settings } from '@app/config';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { jsonlBody } from './jsonl-body';
import { StalledStreams } from './stalled-streams';
import { StreamParams, StreamQuery } from './stream.dto';
import { OpenReplyStream } from './use-cases/open-reply-stream.use-case';

/** The reply stream (CONTRACTS §5): replay from the start or after `after`, then follow live. */
@ApiTags('chat')
@ApiSecurity('service-token')
@Controller('chat/messages')
export class StreamController {
  constructor(
    private readonly openReplyStream: OpenReplyStream,
    private readonly settings: Settings,
    private readonly stalled: StalledStreams,
  ) {}

  @Get(':message_id/stream')
  @ApiProduces('application/jsonl')
  @ApiOkResponse({ description: 'One JSON object a line, each with seq and type; message.completed last.' })
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
      { stallTimeoutMs: this.settings.streamStallTimeoutMs, stalled: this.stalled },
    );
  }
}
