import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FastifyRequest } from 'fastify';
import { InvalidInputError, pydanticIssue } from '@app/contracts';

/**
 * The SKILL.md of a POST /skills: the multipart field `file`, or `content` of a JSON body; either may carry
 * `user_id`.
 */
export async function readSkillUpload(
  request: FastifyRequest,
  body: unknown,
): Promise<{ content: string; loc: string[]; userId?: string }> {
  if (!request.isMultipart()) {
    const json = (body ?? {}) as { content?: unknown; user_id?: unknown };
    if (json.content === undefined || json.content === null) {
      throw new InvalidInputError([pydanticIssue('missing', ['body', 'content'], json)]);
    }
    if (typeof json.content !== 'string') {
      throw new InvalidInputError([pydanticIssue('string_type', ['body', 'content'], json.content)]);
    }
    const userId = typeof json.user_id === 'string' ? json.user_id : undefined;
    return { content: json.content, loc: ['body', 'content'], userId };
  }
  let content: string | undefined;
  let userId: string | undefined;
  for await (const part of request.parts()) {
    if (part.type === 'file' && part.fieldname === 'file') {
      content = (await part.toBuffer()).toString('utf8');
    } else if (part.type === 'field' && part.fieldname === 'user_id' && typeof part.value === 'string') {
      userId = part.value;
    }
  }
  if (content === undefined) {
    throw new InvalidInputError([pydanticIssue('missing', ['body', 'file'], null)]);
  }
  return { content, loc: ['body', 'file'], userId };
}

/** The multipart form of POST /skills, for the OpenAPI document (the JSON form is CreateSkillDto). */
export class SkillFileUpload {
  @ApiProperty({ type: 'string', format: 'binary', description: 'The SKILL.md.' })
  file: unknown;

  @ApiPropertyOptional({ description: 'The end user creating it, when not in the query.' })
  user_id?: string;
}
