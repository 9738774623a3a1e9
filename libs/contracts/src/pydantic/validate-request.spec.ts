import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNumber, IsOptional, IsString, IsUrl, ValidateNested } from 'class-validator';
import { CreateAgentDto, UpdateAgentDto } from '../dto/agent.dto';
import { CreateWebhookDto, ListWebhookDeliveriesQuery } from '../dto/webhook.dto';
import { Ge, Le } from '../dto/rules';
import { StartChatOptionsDto } from '../dto/start-chat.dto';
import { PutUserBudgetDto } from '../dto/user-budget.dto';
import { PythonFloat, pythonJson } from './python-json';
import { modelSchema } from './request-schema';
import { nulIssue, validateRequest } from './validate-request';

class Sampling {
  @IsNumber()
  @Ge(0)
  @Le(2)
  temperature: number;
}

describe('the float kind (Pydantic float, lax)', () => {
  it.each([
    [1.5, 1.5],
    [1, 1],
    ['1.5', 1.5],
    [' 2 ', 2],
    ['1_0e-1', 1],
    [true, 1],
  ])('takes %p as %p', (input, expected) => {
    expect(validateRequest(Sampling, { temperature: input }, 'body')).toEqual({
      ok: true,
      value: expect.objectContaining({ temperature: expected }),
    });
  });

  it('answers a string that is not a number with float_parsing', () => {
    expect(validateRequest(Sampling, { temperature: 'warm' }, 'body')).toEqual({
      ok: false,
      issues: [
        {
          type: 'float_parsing',
          loc: ['body', 'temperature'],
          msg: 'Input should be a valid number, unable to parse string as a number',
          input: 'warm',
        },
      ],
    });
  });

  it('answers a list with float_type and a value out of bounds with its bound', () => {
    const typed = validateRequest(Sampling, { temperature: [1] }, 'body');
    const above = validateRequest(Sampling, { temperature: 2.5 }, 'body');
    const notANumber = validateRequest(Sampling, { temperature: 'nan' }, 'body');
    expect(typed.ok === false && typed.issues.map((issue) => issue.type)).toEqual(['float_type']);
    expect(above.ok === false && above.issues[0]).toMatchObject({
      type: 'less_than_equal',
      msg: 'Input should be less than or equal to 2',
      ctx: { le: new PythonFloat(2) },
    });
    expect(notANumber.ok).toBe(false);
  });

  it("writes a float's bound as Python does in JSON (2.0), and a string that looks marked as it is", () => {
    const above = validateRequest(Sampling, { temperature: 2.5 }, 'body');
    expect(above.ok === false && pythonJson({ detail: above.issues })).toBe(
      '{"detail":[{"type":"less_than_equal","loc":["body","temperature"],' +
        '"msg":"Input should be less than or equal to 2","input":2.5,"ctx":{"le":2.0}}]}',
    );
    expect(pythonJson({ a: new PythonFloat(0.5), b: 'python-float-x:2', c: 2 })).toBe(
      '{"a":0.5,"b":"python-float-x:2","c":2}',
    );
  });
});

describe('DTOs written for the layer', () => {
  it('agents: nested MCP servers are models, nullable fields take null, the update is partial', () => {
    const created = validateRequest(
      CreateAgentDto,
      { name: 'a', temperature: '0.5', tools: null, token_budget: null, mcp: [{ name: 'x', server: 1 }] },
      'body',
    );
    expect(created.ok === false && created.issues).toEqual([
      expect.objectContaining({ type: 'string_type', loc: ['body', 'mcp', 0, 'server'] }),
    ]);
    const updated = validateRequest(UpdateAgentDto, { memory_namespace: null, temperature: 1 }, 'body');
    expect(updated).toEqual({ ok: true, value: expect.objectContaining({ memory_namespace: null }) });
  });

  it('agents: an MCP server with command or args is refused as a whole, echoing only those fields', () => {
    const sent = {
      name: 'a',
      mcp: [
        { name: 'ok', server: 'github' },
        { name: 'probe', command: '/usr/bin/node', args: ['-e', 'x'], env: { TOKEN: 'secret' } },
        { name: 'args-only', server: 'github', args: [] },
      ],
    };
    const created = validateRequest(CreateAgentDto, sent, 'body');
    expect(created.ok === false && created.issues).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'mcp', 1],
        msg: expect.stringMatching(/^Value error, command and args are not accepted/),
        input: { command: '/usr/bin/node', args: ['-e', 'x'] },
        ctx: { error: {} },
      },
      expect.objectContaining({ loc: ['body', 'mcp', 2], input: { args: [] } }),
    ]);
  });

  it('webhooks: events are a non-empty list of the enum; limit is a lax integer', () => {
    const empty = validateRequest(CreateWebhookDto, { url: 'https://x.test', events: [] }, 'body');
    expect(empty.ok === false && empty.issues.map((issue) => issue.type)).toEqual(['too_short']);
    const unknown = validateRequest(CreateWebhookDto, { url: 'https://x.test', events: ['nope'] }, 'body');
    expect(unknown.ok === false && unknown.issues[0]).toMatchObject({
      type: 'enum',
      loc: ['body', 'events', 0],
    });
    expect(validateRequest(ListWebhookDeliveriesQuery, { limit: '5' }, 'query')).toEqual({
      ok: true,
      value: expect.objectContaining({ limit: 5 }),
    });
  });
});

describe('rules the layer does not check', () => {
  it('refuses a class-validator rule with no Pydantic meaning here, naming the class and field', () => {
    class WithUrl {
      @IsString()
      @IsUrl()
      url: string;
    }
    expect(() => modelSchema(WithUrl)).toThrow(
      /WithUrl\.url: rules the Pydantic layer does not check: isUrl/,
    );
  });

  it('refuses ValidateNested without @Model', () => {
    class Inner {
      @IsString()
      name: string;
    }
    class Outer {
      @IsOptional()
      @ValidateNested()
      @Type(() => Inner)
      inner?: Inner;
    }
    expect(() => modelSchema(Outer)).toThrow(/Outer\.inner: ValidateNested without @Model/);
  });

  it('refuses an { each: true } rule on a field that is not a list', () => {
    class Each {
      @IsIn(['a'], { each: true })
      letters: string[];
    }
    expect(() => modelSchema(Each)).toThrow(/Each\.letters: a rule with \{ each: true \} needs @IsArray\(\)/);
  });
});

describe('numbers without an upper bound (issue #44)', () => {
  class Unbounded {
    @IsInt()
    @Ge(0)
    max_tokens: number;
  }

  it('cannot be declared: the schema names the field, so the gateway does not start', () => {
    expect(() => modelSchema(Unbounded)).toThrow(
      /Unbounded\.max_tokens: a number needs an upper bound \(@Le\)/,
    );
  });

  it('are bounded in every DTO, so 1e20 tokens or 2^31 steps is a 422, not a database error', () => {
    expect(validateRequest(PutUserBudgetDto, { period: 'day', max_tokens: 1e20 }, 'body')).toEqual({
      ok: false,
      issues: [expect.objectContaining({ type: 'less_than_equal', loc: ['body', 'max_tokens'] })],
    });
    expect(
      validateRequest(StartChatOptionsDto, { agent_id: 'a', user_id: 'u', max_steps: 2147483648 }, 'body'),
    ).toEqual({
      ok: false,
      issues: [expect.objectContaining({ type: 'less_than_equal', loc: ['body', 'max_steps'] })],
    });
  });
});

describe('nulIssue: a NUL anywhere in a part no DTO describes (issue #44)', () => {
  it('points at the string that holds it, however deep', () => {
    const body = { input: [{ role: 'user', content: [{ type: 'input_text', text: 'a\u0000b' }] }] };
    expect(nulIssue(body, ['body'])).toEqual({
      type: 'value_error',
      loc: ['body', 'input', 0, 'content', 0, 'text'],
      msg: 'Value error, text must not contain the NUL character',
      input: 'a\u0000b',
      ctx: { error: {} },
    });
  });

  it('points at the object whose key holds it', () => {
    expect(nulIssue({ metadata: { 'k\u0000': 'v' } }, ['body'])?.loc).toEqual(['body', 'metadata']);
  });

  it('finds none in clean values of any type', () => {
    expect(nulIssue({ a: [1, true, null, 'x', { b: 'c' }] }, ['body'])).toBeNull();
    expect(nulIssue(undefined, ['query'])).toBeNull();
    expect(nulIssue('\u0000', ['path'])?.loc).toEqual(['path']);
  });
});
