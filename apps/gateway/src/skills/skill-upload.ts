import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { FastifyRequest } from 'fastify';
import { CreateSkillDto, InvalidInputError, MaxChars, MinChars, validateRequest } from '@app/contracts';

/**
 * The SKILL.md of a POST /skills: the multipart field `file`, or `content` of a JSON body; either may carry
 * `user_id`.
 */
export async function readSkillUpload(
  request: FastifyRequest,
  body: unknown,
): Promise<{ content: string; loc: string[]; userId?: string }> {
  if (!request.isMultipart()) {
    const json = validated(CreateSkillDto, body);
    return { content: json.content, loc: ['body', 'content'], userId: json.user_id };
  }
  const form: Record<string, string> = {};
  for await (const part of request.parts()) {
    if (part.type === 'file' && part.fieldname === 'file') {
      form.file = (await part.toBuffer()).toString('utf8');
    } else if (part.type === 'field' && part.fieldname === 'user_id' && typeof part.value === 'string') {
      form.user_id = part.value;
    }
  }
  const upload = validated(SkillFileUpload, form);
  return { content: upload.file, loc: ['body', 'file'], userId: upload.user_id };
}

/** Either form checked as the gateway checks every body (Pydantic's rules, NUL refused), since it reads this one by hand. */
function validated<T extends object>(dto: new () => T, body: unknown): T {
  const result = validateRequest(dto, body, 'body');
  if (!result.ok) throw new InvalidInputError(result.issues);
  return result.value;
}

/** The multipart form of POST /skills (the JSON form is CreateSkillDto); `file` is read as UTF-8 text. */
export class SkillFileUpload {
  @ApiProperty({ type: 'string', format: 'binary', description: 'The SKILL.md.' })
  @IsString()
  file: string;

  @ApiPropertyOptional({ description: 'The end user creating it, when not in the query.' })
  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(256)
  user_id?: string;
}
