import { Module } from '@nestjs/common';
import { ReplyStreamModule } from '../reply-stream/reply-stream.module';
import { StreamController } from './stream.controller';

/** GET /chat/messages/{message_id}/stream: a reply's lines as JSONL, our own protocol (CONTRACTS §5). */
@Module({
  imports: [ReplyStreamModule],
  controllers: [StreamController],
})
export class StreamModule {}
