import { plainToInstance, Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  validateSync,
  ValidateNested,
  ValidationError,
} from 'class-validator';
import { Ge, Le, MaxChars, MaxItems, OneOf, Pattern } from './dto/rules';
import { jsonInvalidIssue, LocRoot, toValidationIssues } from './validation-error';

class Inner {
  @IsString()
  @MaxChars(5)
  content: string;
}

class Sample {
  @IsString()
  @MaxChars(10)
  name: string;

  @IsOptional()
  @IsInt()
  @Ge(1)
  @Le(100)
  limit?: number;

  @IsOptional()
  @IsBoolean()
  starred?: boolean;

  @IsOptional()
  @IsString()
  @OneOf(['asc', 'desc'])
  order?: string;

  @IsOptional()
  @IsString()
  @Pattern(/^[a-z]+$/)
  slug?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => Inner)
  message?: Inner;

  @IsOptional()
  @IsArray()
  @MaxItems(2)
  @IsString({ each: true })
  @MaxChars(3, { each: true })
  tags?: string[];

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Inner)
  parts?: Inner[];
}

function issues(plain: object, root: LocRoot = 'body') {
  const errors: ValidationError[] = validateSync(plainToInstance(Sample, plain), {
    validationError: { target: true, value: true },
  });
  return toValidationIssues(errors, root);
}

describe('toValidationIssues', () => {
  it('reports a too-long string as Pydantic does', () => {
    expect(issues({ name: 'abcdefghijk' })).toEqual([
      {
        loc: ['body', 'name'],
        msg: 'String should have at most 10 characters',
        type: 'string_too_long',
        input: 'abcdefghijk',
        ctx: { max_length: 10 },
      },
    ]);
  });

  it('reports a missing field once, as "Field required"', () => {
    expect(issues({})).toEqual([
      { loc: ['body', 'name'], msg: 'Field required', type: 'missing', input: null },
    ]);
  });

  it('reports a wrong type before the rules it also fails', () => {
    expect(issues({ name: 42 })).toEqual([
      { loc: ['body', 'name'], msg: 'Input should be a valid string', type: 'string_type', input: 42 },
    ]);
  });

  it('tells an unparsable integer from a number that is not whole', () => {
    expect(issues({ name: 'a', limit: 'ten' })).toEqual([
      {
        loc: ['body', 'limit'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
        input: 'ten',
      },
    ]);
    expect(issues({ name: 'a', limit: 2.5 })[0]).toMatchObject({ type: 'int_type', input: 2.5 });
  });

  it('reports a bound with its ctx', () => {
    expect(issues({ name: 'a', limit: 0 })).toEqual([
      {
        loc: ['body', 'limit'],
        msg: 'Input should be greater than or equal to 1',
        type: 'greater_than_equal',
        input: 0,
        ctx: { ge: 1 },
      },
    ]);
    expect(issues({ name: 'a', limit: 101 })[0]).toMatchObject({ type: 'less_than_equal', ctx: { le: 100 } });
  });

  it('reports a bad enum value with the expected values', () => {
    expect(issues({ name: 'a', order: 'up' })).toEqual([
      {
        loc: ['body', 'order'],
        msg: "Input should be 'asc' or 'desc'",
        type: 'enum',
        input: 'up',
        ctx: { expected: "'asc' or 'desc'" },
      },
    ]);
  });

  it('reports a pattern mismatch and a wrong boolean', () => {
    expect(issues({ name: 'a', slug: 'A!' })[0]).toMatchObject({
      type: 'string_pattern_mismatch',
      ctx: { pattern: '^[a-z]+$' },
    });
    expect(issues({ name: 'a', starred: 'yes' })[0]).toMatchObject({
      type: 'bool_type',
      loc: ['body', 'starred'],
    });
  });

  it('gives nested fields their full path', () => {
    expect(issues({ name: 'a', message: { content: 'too long' } })).toEqual([
      {
        loc: ['body', 'message', 'content'],
        msg: 'String should have at most 5 characters',
        type: 'string_too_long',
        input: 'too long',
        ctx: { max_length: 5 },
      },
    ]);
    expect(issues({ name: 'a', message: {} })).toEqual([
      { loc: ['body', 'message', 'content'], msg: 'Field required', type: 'missing', input: null },
    ]);
  });

  it('reports a nested value that is not an object', () => {
    expect(issues({ name: 'a', message: 'hi' })).toEqual([
      {
        loc: ['body', 'message'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        type: 'model_attributes_type',
        input: 'hi',
      },
    ]);
  });

  it('points a per-item rule at the failing index', () => {
    expect(issues({ name: 'a', tags: ['ok', 'toolong'] })).toEqual([
      {
        loc: ['body', 'tags', 1],
        msg: 'String should have at most 3 characters',
        type: 'string_too_long',
        input: 'toolong',
        ctx: { max_length: 3 },
      },
    ]);
  });

  it('points nested list items at their index', () => {
    expect(issues({ name: 'a', parts: [{ content: 'ok' }, { content: 'far too long' }] })).toEqual([
      {
        loc: ['body', 'parts', 1, 'content'],
        msg: 'String should have at most 5 characters',
        type: 'string_too_long',
        input: 'far too long',
        ctx: { max_length: 5 },
      },
    ]);
  });

  it('reports a list that is too long with its lengths', () => {
    expect(issues({ name: 'a', tags: ['a', 'b', 'c'] })).toEqual([
      {
        loc: ['body', 'tags'],
        msg: 'List should have at most 2 items after validation, not 3',
        type: 'too_long',
        input: ['a', 'b', 'c'],
        ctx: { field_type: 'List', max_length: 2, actual_length: 3 },
      },
    ]);
  });

  it('gives one item per failing field, under the root it is told', () => {
    const found = issues({ limit: 0, order: 'x' }, 'query');
    expect(found.map((issue) => issue.loc)).toEqual([
      ['query', 'name'],
      ['query', 'limit'],
      ['query', 'order'],
    ]);
  });
});

describe('jsonInvalidIssue', () => {
  it('is a json_invalid item at the body', () => {
    expect(jsonInvalidIssue('Unexpected token')).toEqual({
      loc: ['body', 0],
      msg: 'JSON decode error',
      type: 'json_invalid',
      input: {},
      ctx: { error: 'Unexpected token' },
    });
  });
});
