import { Module } from '@nestjs/common';
import { ThreadStartModule } from '@app/chat';
import { QueuesModule } from '@app/queues';
import { ChatModule } from '../chat/chat.module';
import { ReplyStreamModule } from '../reply-stream/reply-stream.module';
import { AnswerWaitingCalls } from './answer-waiting-calls';
import { AskAgent } from './ask-agent.use-case';
import { CancelReply } from './cancel-reply';
import { ReplyRunEvents } from './reply-run-events';
import { ReplyWaits } from './reply-waits';
import { VisibleReplies } from './visible-replies';

/**
 * What every protocol of CONTRACTS §18 and §22 is built on: asking an agent through the chat use cases, and reading the
 * reply's run events through the reply stream, the replies a caller may see, where a reply waits for a person and
 * the answers to its calls.
 */
@Module({
  imports: [ThreadStartModule, ChatModule, ReplyStreamModule, QueuesModule],
  providers: [AnswerWaitingCalls, AskAgent, CancelReply, ReplyRunEvents, ReplyWaits, VisibleReplies],
  exports: [
    AnswerWaitingCalls,
    AskAgent,
    CancelReply,
    ReplyRunEvents,
    ReplyWaits,
    VisibleReplies,
    ChatModule,
    ReplyStreamModule,
  ],
})
export class ProtocolRepliesModule {}
