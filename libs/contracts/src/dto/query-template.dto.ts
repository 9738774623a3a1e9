import { ApiProperty, PartialType } from '@nestjs/swagger';
import { IsInt, IsObject, IsOptional, IsString } from 'class-validator';
import { EXACT_INTEGER_MAX, Ge, Le, MaxChars, MinChars, OneOf } from './rules';

/** In the spec's order (4.7), which is the order a 422 lists them in. */
const TEMPLATE_SCOPES = ['organization', 'private'] as const;

/** Limits of a template's text fields (the spec names none; these keep rows and listings bounded). */
const TEMPLATE_LIMITS = {
  name: 200,
  description: 2000,
  content: 30000,
  iconUri: 2048,
  color: 64,
  userId: 256,
} as const;

/** `user_id` as a query parameter (CONTRACTS §2): the end user acting on templates, connections, sources, skills. */
export class EndUserQuery {
  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(TEMPLATE_LIMITS.userId)
  user_id?: string;
}

/**
 * `user_id` on the calls that create or change something (CONTRACTS §2): the use case answers 422 at
 * `["query", "user_id"]` when neither the query nor the JSON body has it, so the document says it is required.
 */
export class RequiredEndUserQuery extends EndUserQuery {
  @ApiProperty({
    required: true,
    description:
      'The end user acting, stored as created_by / updated_by. Required: missing here and in the JSON body ' +
      'answers 422 at ["query", "user_id"]. May come in the JSON body instead.',
  })
  declare user_id?: string;
}

/** POST /agent_execution/query_templates (spec 4.7). `user_id` may also come in the body. */
export class CreateQueryTemplateDto {
  @IsString()
  @MinChars(1)
  @MaxChars(TEMPLATE_LIMITS.name)
  name: string;

  @IsString()
  @MaxChars(TEMPLATE_LIMITS.content)
  content: string;

  @IsOptional()
  @IsString()
  @MaxChars(TEMPLATE_LIMITS.description)
  description?: string;

  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @IsOptional()
  @IsString()
  @MaxChars(TEMPLATE_LIMITS.iconUri)
  icon_uri?: string;

  @IsOptional()
  @IsString()
  @MaxChars(TEMPLATE_LIMITS.color)
  icon_color?: string;

  @IsOptional()
  @IsString()
  @MaxChars(TEMPLATE_LIMITS.color)
  background_color?: string;

  @IsOptional()
  @OneOf(TEMPLATE_SCOPES)
  scope?: (typeof TEMPLATE_SCOPES)[number];

  @ApiProperty({
    required: false,
    description: 'The end user acting, when not given as the user_id query parameter.',
  })
  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(TEMPLATE_LIMITS.userId)
  user_id?: string;
}

/** PUT /agent_execution/query_templates/{id}: a partial update; absent fields stay as they are. */
export class UpdateQueryTemplateDto extends PartialType(CreateQueryTemplateDto) {}

/** GET /agent_execution/query_templates: the end user, and a page. */
export class ListQueryTemplatesQuery extends EndUserQuery {
  @IsOptional()
  @IsInt()
  @Ge(1)
  @Le(100)
  limit?: number;

  @IsOptional()
  @IsInt()
  @Ge(0)
  @Le(EXACT_INTEGER_MAX)
  offset?: number;
}
