import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUUID } from 'class-validator';
import { Ge } from '@app/contracts';

/** A query string value is text: digits become a number, anything else stays as sent (and fails `IsInt`). */
const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^[+-]?\d+$/.test(value.trim()) ? Number(value) : value;

export class StreamParams {
  @IsUUID('all')
  message_id: string;
}

/** GET /chat/messages/{message_id}/stream query (CONTRACTS §5). */
export class StreamQuery {
  /** Only lines with a greater seq: a client that reconnects passes the last seq it got. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Ge(-1)
  after?: number;

  /** When given, the message's thread must be this end user's (CONTRACTS §2). */
  @IsOptional()
  @IsString()
  user_id?: string;
}
