import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { MaxChars, MinChars, Nullable, OptionalModel } from './rules';

const THREAD_NAME_MAX_CHARS = 200;

class ThreadOwnerOptionsDto {
  @IsOptional()
  @Nullable()
  @IsString()
  user_id?: string | null;
}

/** PUT /chat/{thread_id} body (CONTRACTS §4): rename, star or unstar. */
export class UpdateThreadDto {
  @IsOptional()
  @Nullable()
  @IsString()
  @MinChars(1)
  @MaxChars(THREAD_NAME_MAX_CHARS)
  name?: string | null;

  @IsOptional()
  @Nullable()
  @IsBoolean()
  starred?: boolean | null;

  @OptionalModel(() => ThreadOwnerOptionsDto)
  options?: ThreadOwnerOptionsDto | null;
}
