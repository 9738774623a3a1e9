import { ApiProperty } from '@nestjs/swagger';
import { DATE_TIME } from './message.response';

/** A reply's feedback as PUT and GET /feedback answer it. */
export class FeedbackResponse {
  @ApiProperty({ format: 'uuid' })
  message_id: string;
  @ApiProperty({ format: 'uuid' })
  thread_id: string;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  agent_id: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: "The reply's end user." })
  user_id: string | null;
  @ApiProperty({ enum: [1, -1], type: 'integer' })
  rating: number;
  @ApiProperty({ type: 'string', nullable: true })
  comment: string | null;
  @ApiProperty(DATE_TIME)
  created_at: string;
  @ApiProperty(DATE_TIME)
  updated_at: string;
}
