import {
  Body,
  Controller,
  Headers,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  StreamableFile,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../../auth/current-caller.decorator';
import { EndUserTokenAllowed } from '../../auth/end-user-token-allowed.decorator';
import { RedisAvailableGuard } from '../../http/redis-available.guard';
import { ReplyStreamLimits } from '../../reply-stream/reply-stream-limits';
import { invalidProtocolInput } from '../ask-agent.use-case';
import { sequencedFrames, serverSentEvents } from '../server-sent-events';
import { AgUiErrorFilter } from './ag-ui-error.filter';
import { ApiAgUiRoutes, ApiRunAgent } from './ag-ui.openapi';
import { parseRunAgentInput } from './run-agent-input';
import { RunAgUiAgent } from './run-ag-ui-agent.use-case';
import { resumeSeq } from '../resume-seq';

/**
 * AG-UI 1.0 (CONTRACTS §22): what `@ag-ui/client`'s HttpAgent (and CopilotKit over it) posts, with a key or an
 * end-user token in `Authorization: Bearer`. A run is a reply's stream as AG-UI events, each `id: <seq>`.
 */
@ApiAgUiRoutes()
@UseFilters(AgUiErrorFilter)
@Controller('ag-ui/agents')
export class AgUiController {
  constructor(
    private readonly runAgent: RunAgUiAgent,
    private readonly limits: ReplyStreamLimits,
  ) {}

  @Post(':agent_id')
  @HttpCode(200)
  @EndUserTokenAllowed()
  // As POST /chat: refused (503) before anything is stored while Redis, which runs the reply, is down.
  @UseGuards(RedisAvailableGuard)
  @ApiRunAgent()
  async run(
    @CurrentCaller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Body() body: unknown,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query('after') afterQuery: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile> {
    const after = seqOf(lastEventId ?? afterQuery);
    const events = await this.runAgent.execute(caller, agentId, parseRunAgentInput(body), after);
    return serverSentEvents(events, sequencedFrames, reply, this.limits);
  }
}

/** Last-Event-ID or `after`: the seq of the last event the client has. */
const seqOf = (value: string | undefined): number | undefined =>
  resumeSeq(value, undefined, (sent) =>
    invalidProtocolInput(
      ['header', 'last-event-id'],
      sent,
      'Last-Event-ID must be the id (a seq) of an event',
    ),
  );
