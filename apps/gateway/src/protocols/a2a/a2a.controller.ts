import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Req,
  Res,
  StreamableFile,
  UseFilters,
} from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { Settings } from '@app/config';
import { isRowId, NotFoundError } from '@app/contracts';
import { Caller, mayUseAgent } from '@app/identity';
import { AgentEntity, AgentRepository } from '@app/persistence';
import { CurrentCaller } from '../../auth/current-caller.decorator';
import { EndUserTokenAllowed } from '../../auth/end-user-token-allowed.decorator';
import { deploymentInfo } from '../../ops/deployment';
import { ReplyStreamLimits } from '../../reply-stream/reply-stream-limits';
import { EventStream, mappedStream } from '../reply-run-events';
import { SequencedEvents, sequencedFrames, serverSentEvents } from '../server-sent-events';
import { agentCard } from './a2a-agent-card';
import { A2aErrorFilter, AGENT_NOT_FOUND, invalidParams } from './a2a-errors';
import { A2aRequest, parseA2aRequest, parseSend, taskIdOf } from './a2a-request';
import { A2aTasks } from './a2a-tasks';
import { ApiA2aCard, ApiA2aJsonRpc, ApiA2aRoutes } from './a2a.openapi';
import { resumeSeq } from '../resume-seq';

/**
 * A2A v1.0 (CONTRACTS §22): one A2A agent per Parley agent, its Agent Card and its JSON-RPC endpoint, with a key
 * or an end-user token in `Authorization: Bearer`. Tasks are replies; their updates the reply's run events.
 */
@ApiA2aRoutes()
@UseFilters(A2aErrorFilter)
@Controller('a2a/agents')
export class A2aController {
  constructor(
    private readonly tasks: A2aTasks,
    private readonly agents: AgentRepository,
    private readonly settings: Settings,
    private readonly limits: ReplyStreamLimits,
  ) {}

  @Get(':agent_id/.well-known/agent-card.json')
  @ApiA2aCard()
  @EndUserTokenAllowed()
  async card(
    @CurrentCaller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Req() request: FastifyRequest,
  ): Promise<Record<string, unknown>> {
    const agent = await this.visibleAgent(caller, agentId);
    const endpoint = `${request.protocol}://${request.headers.host}/a2a/agents/${agent.id}`;
    return agentCard(agent, endpoint, deploymentInfo(this.settings).tag);
  }

  @Post(':agent_id')
  @HttpCode(200)
  @ApiA2aJsonRpc()
  @EndUserTokenAllowed()
  async rpc(
    @CurrentCaller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Body() body: unknown,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const request = parseA2aRequest(body);
    await this.visibleAgent(caller, agentId);
    const { params } = request;
    switch (request.method) {
      case 'SendMessage': {
        const send = parseSend(params);
        const ref = await this.tasks.send(caller, agentId, send);
        const task = send.returnImmediately
          ? await this.tasks.get(caller, agentId, ref.taskId)
          : await this.tasks.settled(caller, ref);
        return result(request, { task });
      }
      case 'SendStreamingMessage': {
        const ref = await this.tasks.send(caller, agentId, parseSend(params));
        return this.sse(request, await this.tasks.updates(caller, ref), reply);
      }
      case 'GetTask':
        return result(request, await this.tasks.get(caller, agentId, taskIdOf(params)));
      case 'CancelTask':
        return result(request, await this.tasks.cancel(caller, agentId, taskIdOf(params)));
      case 'SubscribeToTask': {
        const { reply: task, thread } = await this.tasks.find(caller, agentId, taskIdOf(params));
        const ref = { taskId: task.id, contextId: thread.id, after: lastEventSeq(lastEventId) };
        return this.sse(request, await this.tasks.updates(caller, ref), reply);
      }
    }
  }

  /** The agent of the route: of the caller's organization and one an end-user token may use; else 404. */
  private async visibleAgent(caller: Caller, agentId: string): Promise<AgentEntity> {
    const agent = isRowId(agentId) ? await this.agents.findActive(caller.orgId, agentId) : null;
    if (!agent || !mayUseAgent(caller, agent.id)) throw new NotFoundError(AGENT_NOT_FOUND);
    return agent;
  }

  /** Each update a JSON-RPC response to the request, `id: <seq>` on each event (CONTRACTS §22). */
  private sse(
    request: A2aRequest,
    updates: EventStream<SequencedEvents>,
    reply: FastifyReply,
  ): StreamableFile {
    async function* answers(): AsyncGenerator<SequencedEvents> {
      for await (const batch of updates) {
        yield batch && { seq: batch.seq, events: batch.events.map((update) => result(request, update)) };
      }
    }
    return serverSentEvents(mappedStream(updates, answers), sequencedFrames, reply, this.limits);
  }
}

const result = (request: A2aRequest, value: unknown) => ({ jsonrpc: '2.0', id: request.id, result: value });

/** `Last-Event-ID`: the seq of the last event the client has (absent: from the first). */
const lastEventSeq = (value: string | undefined): number =>
  resumeSeq(value, -1, () => invalidParams('Last-Event-ID must be the id (a seq) of an event'));
