import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { MaxChars, MinChars, NotAccepted, Nullable, OneOf } from './rules';

const SKILL_SCOPES = ['organization', 'private'] as const;

/** POST /skills as JSON: the SKILL.md text (CONTRACTS §11). */
export class CreateSkillDto {
  @IsString()
  content: string;

  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(256)
  user_id?: string;
}

/** PUT /skills/{skill_pid} (spec 4.8): every field optional and nullable; null leaves it as it is. */
export class UpdateSkillDto {
  @IsOptional()
  @Nullable()
  @IsString()
  @MinChars(1)
  @MaxChars(200)
  display_name?: string | null;

  @IsOptional()
  @Nullable()
  @IsBoolean()
  active?: boolean | null;

  @IsOptional()
  @Nullable()
  @OneOf(SKILL_SCOPES)
  scope?: (typeof SKILL_SCOPES)[number] | null;

  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(256)
  user_id?: string;

  /**
   * A skill's SKILL.md is fixed once created (spec 4.8 takes display_name, active and scope): refused rather than
   * ignored, since a 200 that changed nothing looked like success. To change it, delete the skill and create it
   * again.
   */
  @IsOptional()
  @NotAccepted()
  content?: never;
}
