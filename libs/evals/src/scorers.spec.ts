import { asksJudge, scoreReply, verdictOf } from './scorers';

const reply = (output: string, toolsCalled: string[] = [], succeeded = true) => ({
  output,
  toolsCalled,
  succeeded,
});
const noJudge = () => Promise.reject(new Error('no rubric here'));

describe('scoreReply', () => {
  it('scores each scorer exactly: equals (trimmed), contains, regex, tool_called', async () => {
    const expected = {
      equals: 'The time is noon',
      contains: 'noon',
      regex: 'The \\w+ is noon',
      tool_called: 'clock',
    };
    expect(await scoreReply(expected, reply('  The time is noon \n', ['clock']), noJudge)).toEqual({
      scores: {
        equals: { passed: true },
        contains: { passed: true },
        regex: { passed: true },
        tool_called: { passed: true },
      },
      passed: true,
    });
    expect(await scoreReply(expected, reply('the time is Noon', ['web']), noJudge)).toEqual({
      scores: {
        equals: { passed: false },
        contains: { passed: false },
        regex: { passed: false },
        tool_called: { passed: false },
      },
      passed: false,
    });
  });

  it('fails an item whose reply failed even when its scores pass, and passes one that expects nothing', async () => {
    expect((await scoreReply({ contains: 'x' }, reply('x', [], false), noJudge)).passed).toBe(false);
    expect(await scoreReply(null, reply('anything'), noJudge)).toEqual({ scores: {}, passed: true });
  });

  it('asks the judge for a rubric, with the rubric and the answer', async () => {
    const asked: string[][] = [];
    const judge = (rubric: string, output: string) => (
      asked.push([rubric, output]),
      Promise.resolve({ passed: false, reason: 'too curt' })
    );
    expect(await scoreReply({ rubric: 'is polite' }, reply('No.'), judge)).toEqual({
      scores: { rubric: { passed: false, reason: 'too curt' } },
      passed: false,
    });
    expect(asked).toEqual([['is polite', 'No.']]);
  });
});

describe('asksJudge', () => {
  it('is true only when a rubric is expected', () => {
    expect(asksJudge({ rubric: 'is polite', contains: 'x' })).toBe(true);
    expect(asksJudge({ equals: 'x', contains: 'x', regex: 'x', tool_called: 'clock' })).toBe(false);
    expect(asksJudge(null)).toBe(false);
  });
});

describe('verdictOf', () => {
  it.each([
    ['Yes. It greets the user.', { passed: true, reason: 'It greets the user.' }],
    ['no - it never says the time', { passed: false, reason: 'it never says the time' }],
    ['**YES**\nPolite and short.', { passed: true, reason: 'Polite and short.' }],
    ['yes', { passed: true }],
  ])('reads %j', (answer, score) => {
    expect(verdictOf(answer)).toEqual(score);
  });

  it('fails an answer without a verdict, saying so', () => {
    expect(verdictOf('Maybe, hard to say')).toEqual({
      passed: false,
      reason: 'the judge gave no yes/no verdict: Maybe, hard to say',
    });
    expect(verdictOf('yesterday it was fine').passed).toBe(false);
  });
});
