import { Module } from '@nestjs/common';
import { FeedbackController } from './feedback.controller';
import { ListFeedback, PutFeedback } from './feedback.use-cases';

/** PUT /chat/messages/{message_id}/feedback and GET /feedback. */
@Module({
  controllers: [FeedbackController],
  providers: [PutFeedback, ListFeedback],
})
export class FeedbackModule {}
