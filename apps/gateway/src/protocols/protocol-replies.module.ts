import { Module } from '@nestjs/common';
import { ThreadStartModule } from '@app/chat';
import { ChatModule } from '../chat/chat.module';
import { StreamModule } from '../stream/stream.module';
import { AskAgent } from './ask-agent.use-case';
import { ReplyRunEvents } from './reply-run-events';

/**
 * What every protocol of CONTRACTS §18 is built on: asking an agent through the chat use cases, and reading the
 * reply's run events through the reply stream.
 */
@Module({
  imports: [ThreadStartModule, ChatModule, StreamModule],
  providers: [AskAgent, ReplyRunEvents],
  exports: [AskAgent, ReplyRunEvents, ChatModule, StreamModule],
})
export class ProtocolRepliesModule {}
