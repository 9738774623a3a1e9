import { webhookEvent } from '@app/contracts';
import { RunStepEntity } from '../../entities';
import { RUN_STEP_COLUMNS } from '../run-step-row';
import { ReplyOutcome } from './reply-ending.parameters';
import { ReplyEnding, RUN_ENDING, UNHELD_REPLY_CANCEL } from './reply-ending';

const ENDINGS: [string, ReplyEnding][] = [
  ['RUN_ENDING', RUN_ENDING],
  ['UNHELD_REPLY_CANCEL', UNHELD_REPLY_CANCEL],
];

const outcome: ReplyOutcome = {
  status: 'error',
  content: 'partial',
  errorCode: 'budget_exhausted',
  questions: null,
  structuredOutput: { a: 1 },
  events: [{ type: 'x' }],
  deltaLengths: [3, 4],
};

/** The placeholders a text uses, as numbers. */
const placeholdersOf = (text: string): number[] =>
  [...new Set([...text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])))].sort((a, b) => a - b);

describe('the statements that end a reply', () => {
  it.each(ENDINGS)('%s is composed as the snapshot holds it', (_, ending) => {
    expect(ending.statement.text).toMatchSnapshot();
  });

  it.each(ENDINGS)('%s has every effect no ending may skip', (_, ending) => {
    const text = ending.statement.text;
    expect(text).toMatch(/closed AS \(UPDATE messages SET status = \$\d+::text, live = false,/);
    expect(text).toContain('completed_at = now(), updated_at = now()');
    expect(text).toContain(
      'journal AS (DELETE FROM run_stream_journal j USING closed WHERE j.message_id = closed.id)',
    );
    expect(text).toMatch(/hooks AS \(INSERT INTO webhook_deliveries [\s\S]*FROM closed, webhooks w/);
  });

  it.each(ENDINGS)('%s numbers its parameters 1 to n, one per name, each with its type', (_, ending) => {
    const numbers = placeholdersOf(ending.statement.text);
    expect(numbers).toEqual(ending.parameters.map((_name, index) => index + 1));
    for (const match of ending.statement.text.matchAll(/\$\d+(?!\d)(::)?/g)) expect(match[1]).toBe('::');
  });

  it("maps a run's end to its parameters by name, and a missing last step to nulls", () => {
    const event = webhookEvent('message.failed', { id: 'r' });
    const step = Object.assign(new RunStepEntity(), {
      messageId: 'reply-1',
      step: 2,
      text: 'last',
      toolCalls: [],
      questions: null,
      structuredOutput: null,
      usageTokens: 9,
      outputTokens: 4,
      contentLength: 7,
      startedAt: new Date(0),
      deltaLengths: [7],
      streamedText: null,
      model: 'builtin',
      cachedInputTokens: 0,
    });
    const input = { replyId: 'reply-1', outcome, event, lastStep: step, orgCap: 3 };
    const valueOf = (values: unknown[], name: string) => values[RUN_ENDING.parameters.indexOf(name as never)];
    const values = RUN_ENDING.values(input);

    expect(values).toHaveLength(RUN_ENDING.parameters.length);
    expect(valueOf(values, 'replyId')).toBe('reply-1');
    expect(valueOf(values, 'status')).toBe('error');
    expect(valueOf(values, 'content')).toBe('partial');
    expect(valueOf(values, 'errorCode')).toBe('budget_exhausted');
    expect(valueOf(values, 'structuredOutput')).toBe('{"a":1}');
    expect(valueOf(values, 'events')).toBe('[{"type":"x"}]');
    expect(valueOf(values, 'deltaLengths')).toEqual([3, 4]);
    expect(valueOf(values, 'eventId')).toBe(event.id);
    expect(valueOf(values, 'eventType')).toBe('message.failed');
    expect(JSON.parse(valueOf(values, 'eventPayload') as string)).toEqual(event.payload);
    expect(valueOf(values, 'orgCap')).toBe(3);
    expect(RUN_STEP_COLUMNS.map((column) => valueOf(values, `lastStep.${column.name}`))).toEqual(
      RUN_STEP_COLUMNS.map((column) => column.value(step)),
    );

    const withoutStep = RUN_ENDING.values({ ...input, lastStep: null, orgCap: undefined });
    expect(RUN_STEP_COLUMNS.map((column) => valueOf(withoutStep, `lastStep.${column.name}`))).toEqual(
      RUN_STEP_COLUMNS.map(() => null),
    );
    expect(valueOf(withoutStep, 'orgCap')).toBe(0);
  });

  it('keeps the row of a reply no run holds: its cancel asks only for its status, and a run for its whole outcome', () => {
    const event = webhookEvent('message.cancelled', {});
    const cancel = { replyId: 'reply-2', outcome: { status: 'cancelled' as const }, event };

    expect(UNHELD_REPLY_CANCEL.parameters).toEqual([
      'status',
      'replyId',
      'eventId',
      'eventType',
      'eventPayload',
    ]);
    expect(UNHELD_REPLY_CANCEL.values(cancel).slice(0, 2)).toEqual(['cancelled', 'reply-2']);
    expect(UNHELD_REPLY_CANCEL.statement.text).toContain(
      `AND live AND status IN ('pending', 'requires_action')`,
    );
    expect(() => RUN_ENDING.values(cancel)).toThrow('writes a final row but was given only its status');
  });

  it("hands a run's spending turn on in its ending, after the row is closed, and names the parked reply it went to", () => {
    const text = RUN_ENDING.statement.text;
    // Read from `closed`: the give-back runs once the row is closed, and not at all when someone else ended it.
    expect(text).toMatch(
      /turn AS \(SELECT [^)]* FROM closed,\s+LATERAL \([^)]*parley_give_back_user_budget_turn\(closed\.id\)/,
    );
    expect(text).toContain('(SELECT next_reply_id FROM turn) AS next_parked_reply_id');
    expect(text).toContain('(SELECT next_thread_id FROM turn) AS next_parked_thread_id');
    // A cancel of a reply no run holds leaves the hand-on to the reply's own job, which closes its stream.
    expect(UNHELD_REPLY_CANCEL.statement.text).not.toContain('parley_give_back_user_budget_turn');
  });
});
