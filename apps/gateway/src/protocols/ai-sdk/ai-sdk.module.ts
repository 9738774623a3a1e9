import { Module } from '@nestjs/common';
import { ChatUseCasesModule } from '@app/chat';
import { QueuesModule } from '@app/queues';
import { ReplyStreamModule } from '../../reply-stream/reply-stream.module';
import { ProtocolRepliesModule } from '../protocol-replies.module';
import { AiSdkChatController } from './ai-sdk-chat.controller';
import { ResumeChatStream } from './use-cases/resume-chat-stream.use-case';
import { SendChatMessage } from './use-cases/send-chat-message.use-case';
import { LoadChatMessages } from './use-cases/load-chat-messages.use-case';
import { StopChat } from './use-cases/stop-chat.use-case';

/** The AI SDK's chat protocol on top of the chat use cases and the reply stream reader. */
@Module({
  imports: [ProtocolRepliesModule, ChatUseCasesModule, QueuesModule, ReplyStreamModule],
  controllers: [AiSdkChatController],
  providers: [SendChatMessage, ResumeChatStream, StopChat, LoadChatMessages],
})
export class AiSdkModule {}
