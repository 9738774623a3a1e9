import { ApiProperty } from '@nestjs/swagger';
import { DATE_TIME } from './message.response';

/** An item of GET /chat/{thread_id}/branches (CONTRACTS §19): one branch of the thread's message tree. */
export class BranchResponse {
  @ApiProperty({ format: 'uuid', description: 'The last message of the branch.' })
  leaf_message_id: string;
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description:
      'The message after which this branch parts from the others (the user message of a regenerated reply, the ' +
      'message before an edited one); null when it parts at the start of the thread, or the thread never branched.',
  })
  fork_message_id: string | null;
  @ApiProperty({ ...DATE_TIME, description: 'When the branch began: its first message after the fork.' })
  created_at: string;
  @ApiProperty({ description: 'Whether GET /chat/{thread_id} shows this branch.' })
  active: boolean;
}
