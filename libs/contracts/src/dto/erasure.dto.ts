import { IsInt, IsString, IsUUID } from 'class-validator';
import { END_USER_ID_MAX_CHARS } from './end-user-token.dto';
import { Ge, Le, MaxChars, MinChars, Nullable } from './rules';

/** The longest retention a setting may name: a hundred years. */
const RETENTION_MAX_DAYS = 36_500;

/** The `{user_id}` of DELETE /users/{user_id} and GET /users/{user_id}/export. */
export class UserParams {
  @IsString()
  @MinChars(1)
  @MaxChars(END_USER_ID_MAX_CHARS)
  user_id: string;
}

/** The `{erasure_id}` of GET /erasures/{erasure_id}. */
export class ErasureParams {
  @IsUUID()
  erasure_id: string;
}

/** PUT /settings/retention (CONTRACTS §20): null keeps threads for ever. */
export class PutRetentionDto {
  @Nullable()
  @IsInt()
  @Ge(1)
  @Le(RETENTION_MAX_DAYS)
  thread_days: number | null;
}
