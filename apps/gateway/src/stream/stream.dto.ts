import { IsInt, IsOptional, IsString, IsUUID } from 'class-validator';
import { Ge, Le } from '@app/contracts';

export class StreamParams {
  @IsUUID('all')
  message_id: string;
}

/** GET /chat/messages/{message_id}/stream query (CONTRACTS §5). */
export class StreamQuery {
  /** Only lines with a greater seq: a client that reconnects passes the last seq it got. */
  @IsOptional()
  @IsInt()
  @Ge(-1)
  /** Past 2**53 a seq cannot be told from its neighbours: no line has one, so it is refused rather than rounded. */
  @Le(Number.MAX_SAFE_INTEGER)
  after?: number;

  /** When given, the message's thread must be this end user's (CONTRACTS §2). */
  @IsOptional()
  @IsString()
  user_id?: string;
}
