import { ArgumentMetadata } from '@nestjs/common';
import { Transform, Type } from 'class-transformer';
import { IsInt, IsObject, IsOptional, IsString, IsUUID, ValidateNested } from 'class-validator';
import { Ge, InvalidInputError, Le, MaxChars, OneOf, ValidationIssue } from '@app/contracts';
import { ApiValidationPipe } from './api-validation.pipe';

class MessageBody {
  @IsString()
  @MaxChars(20)
  content: string;
}

class PostBody {
  // ValidateNested alone lets a missing object through: IsObject makes it required (the DTOs' convention).
  @IsObject()
  @ValidateNested()
  @Type(() => MessageBody)
  message: MessageBody;

  @IsOptional()
  @IsString()
  @OneOf(['low', 'high'])
  priority?: string;
}

const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;

class ListQuery {
  @IsString()
  user_id: string;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Ge(1)
  @Le(100)
  limit?: number;
}

class IdParams {
  @IsUUID()
  thread_id: string;
}

const pipe = new ApiValidationPipe();
const body: ArgumentMetadata = { type: 'body', metatype: PostBody };
const query: ArgumentMetadata = { type: 'query', metatype: ListQuery };
const path: ArgumentMetadata = { type: 'param', metatype: IdParams };

async function rejection(value: unknown, metadata: ArgumentMetadata): Promise<ValidationIssue[]> {
  try {
    await pipe.transform(value, metadata);
  } catch (error) {
    if (error instanceof InvalidInputError) return error.issues;
    throw error;
  }
  throw new Error('the value was accepted');
}

describe('ApiValidationPipe', () => {
  it('answers a valid body as an instance, without unknown fields', async () => {
    const value = await pipe.transform({ message: { content: 'hi' }, extra: 1 }, body);
    expect(value).toBeInstanceOf(PostBody);
    expect(value).toEqual({ message: { content: 'hi' } });
  });

  it('locates body errors under "body", nested fields by their path', async () => {
    expect(await rejection({ message: { content: 'x'.repeat(21) } }, body)).toEqual([
      {
        loc: ['body', 'message', 'content'],
        msg: 'String should have at most 20 characters',
        type: 'string_too_long',
        input: 'x'.repeat(21),
        ctx: { max_length: 20 },
      },
    ]);
  });

  it('reports every failing field of a body', async () => {
    const issues = await rejection({ priority: 'urgent' }, body);
    expect(issues).toEqual([
      {
        loc: ['body', 'message'],
        msg: 'Field required',
        type: 'missing',
        input: null,
      },
      {
        loc: ['body', 'priority'],
        msg: "Input should be 'low' or 'high'",
        type: 'enum',
        input: 'urgent',
        ctx: { expected: "'low' or 'high'" },
      },
    ]);
  });

  it('refuses a body that is not an object', async () => {
    expect(await rejection([1, 2], body)).toEqual([
      {
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        type: 'model_attributes_type',
        input: [1, 2],
      },
    ]);
    expect(await rejection('text', body)).toMatchObject([{ loc: ['body'], type: 'model_attributes_type' }]);
  });

  it('refuses a nested value that is not an object', async () => {
    expect(await rejection({ message: 'hi' }, body)).toEqual([
      {
        loc: ['body', 'message'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        type: 'model_attributes_type',
        input: 'hi',
      },
    ]);
  });

  it('refuses a missing body', async () => {
    expect(await rejection(undefined, body)).toEqual([
      { loc: ['body'], msg: 'Field required', type: 'missing', input: null },
    ]);
  });

  it('locates query errors under "query"', async () => {
    expect(await rejection({ limit: 'many' }, query)).toEqual([
      { loc: ['query', 'user_id'], msg: 'Field required', type: 'missing', input: null },
      {
        loc: ['query', 'limit'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
        input: 'many',
      },
    ]);
    expect(await rejection({ user_id: 'u', limit: '0' }, query)).toEqual([
      {
        loc: ['query', 'limit'],
        msg: 'Input should be greater than or equal to 1',
        type: 'greater_than_equal',
        input: 0,
        ctx: { ge: 1 },
      },
    ]);
  });

  it('turns query text into the declared types', async () => {
    expect(await pipe.transform({ user_id: 'u', limit: '5' }, query)).toEqual({ user_id: 'u', limit: 5 });
  });

  it('locates path parameter errors under "path"', async () => {
    expect(await rejection({ thread_id: 'nope' }, path)).toEqual([
      {
        loc: ['path', 'thread_id'],
        msg: 'Input should be a valid UUID',
        type: 'uuid_parsing',
        input: 'nope',
      },
    ]);
  });

  it('leaves values without a DTO class alone', async () => {
    expect(await pipe.transform('raw', { type: 'custom' })).toBe('raw');
    expect(await pipe.transform('42', { type: 'param', metatype: String, data: 'id' })).toBe('42');
  });
});
