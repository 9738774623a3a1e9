import { ApiProperty } from '@nestjs/swagger';

/** DELETE /users/{user_id}: the erasure under way. */
export class ErasureAcceptedResponse {
  @ApiProperty({ format: 'uuid' })
  erasure_id: string;
}

/** GET /erasures/{erasure_id}: the receipt. It names the end user only by `user_hash`. */
export class ErasureResponse {
  @ApiProperty({ format: 'uuid' })
  erasure_id: string;
  @ApiProperty({ enum: ['running', 'done'] })
  status: 'running' | 'done';
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    description:
      'Rows removed so far by kind: threads, messages, files, share_links, routines, sources, documents, ' +
      'connections, feedback, budgets, usage_rows (folded into the rows of no end user), templates, skills, ' +
      'idempotency_records, webhook_deliveries. A kind with nothing removed is absent.',
  })
  counts: Record<string, number>;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  completed_at: string | null;
  @ApiProperty({ description: 'Hex SHA-256 of `<organization id>:<user id>`: the end user, never in clear.' })
  user_hash: string;
  @ApiProperty({ type: 'string', format: 'date-time' })
  created_at: string;
}

/** GET and PUT /settings/retention. */
export class RetentionResponse {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Threads whose newest message is older than this many days are erased daily; null: kept.',
  })
  thread_days: number | null;
}
