import { InvalidInputError } from '@app/contracts';
import { parseCreateResponse } from './create-response.request';

const refusal = (body: unknown) => {
  try {
    parseCreateResponse(body);
  } catch (error) {
    if (error instanceof InvalidInputError) return { loc: error.issues[0].loc, msg: error.issues[0].msg };
    throw error;
  }
  throw new Error('accepted');
};

describe('parseCreateResponse', () => {
  it('takes a string input as the message, with the options named as Parley uses them', () => {
    expect(
      parseCreateResponse({
        model: 'agent',
        input: 'hello',
        user: 'alice',
        stream: true,
        max_tool_calls: 3,
        previous_response_id: 'resp_x',
        instructions: 'ignored',
        metadata: { ticket: 'T-1' },
      }),
    ).toEqual({
      model: 'agent',
      content: 'hello',
      user: 'alice',
      stream: true,
      background: false,
      maxToolCalls: 3,
      previousResponseId: 'resp_x',
      metadata: { ticket: 'T-1' },
    });
  });

  it('takes the text of the last user message of an input array', () => {
    const request = parseCreateResponse({
      model: 'agent',
      input: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'answer' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'second' },
            { type: 'input_image', image_url: 'x' },
            { type: 'input_text', text: 'part' },
          ],
        },
        { role: 'system', content: 'later system note' },
      ],
    });
    expect(request.content).toBe('second\npart');
  });

  it("reads prompt.version as the agent version, in OpenAI's spelling or as a number", () => {
    const versionOf = (prompt: unknown) =>
      parseCreateResponse({ model: 'agent', input: 'hi', prompt }).agentVersion;
    expect(versionOf({ id: 'agent', version: '3' })).toBe(3);
    expect(versionOf({ version: 2 })).toBe(2);
    expect(versionOf(null)).toBeUndefined();
    expect(refusal({ model: 'agent', input: 'hi', prompt: { id: 'other', version: '1' } }).loc).toEqual([
      'body',
      'prompt',
      'id',
    ]);
    for (const version of ['v1', '0', 1.5, undefined])
      expect(refusal({ model: 'agent', input: 'hi', prompt: { version } }).loc).toEqual([
        'body',
        'prompt',
        'version',
      ]);
    expect(refusal({ model: 'agent', input: 'hi', prompt: 'pmpt_1' }).loc).toEqual(['body', 'prompt']);
  });

  it('refuses what it cannot use, naming the field', () => {
    expect(refusal({ input: 'hi' }).loc).toEqual(['body', 'model']);
    expect(refusal({ model: 'a' }).loc).toEqual(['body', 'input']);
    expect(refusal({ model: 'a', input: [{ role: 'assistant', content: 'x' }] })).toEqual({
      loc: ['body', 'input'],
      msg: 'input has no user message',
    });
    expect(refusal({ model: 'a', input: 'x'.repeat(30001) }).msg).toMatch(/longer than 30000/);
    expect(refusal({ model: 'a', input: 'hi', stream: 'yes' }).loc).toEqual(['body', 'stream']);
    expect(refusal({ model: 'a', input: 'hi', max_tool_calls: 0 }).loc).toEqual(['body', 'max_tool_calls']);
    // Issue #44: past the integer column of max_steps, never a 500.
    expect(refusal({ model: 'a', input: 'hi', max_tool_calls: 1e15 })).toEqual({
      loc: ['body', 'max_tool_calls'],
      msg: 'max_tool_calls must be a whole number from 1 to 2147483647',
    });
    expect(refusal([1]).loc).toEqual(['body']);
    expect(refusal({ model: 'a', input: 'hi', metadata: { n: 1 } }).loc).toEqual(['body', 'metadata']);
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v']));
    expect(refusal({ model: 'a', input: 'hi', metadata: many }).msg).toMatch(/more than 16 keys/);
  });
});
