import { Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { ProtocolRepliesModule } from '../protocol-replies.module';
import { CancelResponse } from './cancel-response.use-case';
import { CreateResponse } from './create-response.use-case';
import { GetResponse } from './get-response.use-case';
import { ResponseEvents } from './response-events';
import { ResponseReplies } from './response-replies';
import { ResponsesController } from './responses.controller';

/** The OpenAI Responses API at /openai/v1 (CONTRACTS §18). */
@Module({
  imports: [ProtocolRepliesModule, QueuesModule],
  controllers: [ResponsesController],
  providers: [CreateResponse, GetResponse, CancelResponse, ResponseEvents, ResponseReplies],
})
export class ResponsesModule {}
