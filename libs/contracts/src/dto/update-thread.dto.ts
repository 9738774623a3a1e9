import { Type } from 'class-transformer';
import { IsBoolean, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { MaxChars, MinChars } from './rules';

export const THREAD_NAME_MAX_CHARS = 200;

export class ThreadOwnerOptionsDto {
  @IsOptional()
  @IsString()
  user_id?: string | null;
}

/** PUT /chat/{thread_id} body (CONTRACTS §4): rename, star or unstar. */
export class UpdateThreadDto {
  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(THREAD_NAME_MAX_CHARS)
  name?: string | null;

  @IsOptional()
  @IsBoolean()
  starred?: boolean | null;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ThreadOwnerOptionsDto)
  options?: ThreadOwnerOptionsDto | null;
}
