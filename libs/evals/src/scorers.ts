import { EvalScore } from '@app/persistence';

/** What a reply gave, as the scorers read it. */
interface ScoredReply {
  /** The reply ended `success`. */
  succeeded: boolean;
  output: string;
  toolsCalled: string[];
}

/** Grades an answer against a rubric (a judge model): a yes/no verdict and a reason. */
type RubricJudge = (rubric: string, output: string) => Promise<EvalScore>;

const SCORERS = ['equals', 'contains', 'regex', 'tool_called', 'rubric'] as const;
type ScorerName = (typeof SCORERS)[number];

/** Whether scoring a reply against `expected` asks a judge model (a rubric), or only checks the reply. */
export const asksJudge = (expected: Record<string, string> | null): boolean => expected?.rubric !== undefined;

/** A scorer that needs no model: a pure check of the reply. */
const CHECKS: Record<Exclude<ScorerName, 'rubric'>, (expected: string, reply: ScoredReply) => EvalScore> = {
  equals: (expected, reply) => ({ passed: reply.output.trim() === expected.trim() }),
  contains: (expected, reply) => ({ passed: reply.output.includes(expected) }),
  regex: (expected, reply) => ({ passed: new RegExp(expected).test(reply.output) }),
  tool_called: (expected, reply) => ({ passed: reply.toolsCalled.includes(expected) }),
};

/**
 * Every score `expected` asks for, and whether the item passed: the reply succeeded and every score passed. An
 * item that expects nothing passes when its reply succeeded.
 */
export async function scoreReply(
  expected: Record<string, string> | null,
  reply: ScoredReply,
  judge: RubricJudge,
): Promise<{ scores: Record<string, EvalScore>; passed: boolean }> {
  const scores: Record<string, EvalScore> = {};
  for (const name of SCORERS) {
    const wanted = expected?.[name];
    if (wanted === undefined) continue;
    scores[name] = name === 'rubric' ? await judge(wanted, reply.output) : CHECKS[name](wanted, reply);
  }
  return { scores, passed: reply.succeeded && Object.values(scores).every((score) => score.passed) };
}

/** The first line of a judge's answer starts with its verdict; the rest (or the rest of that line) is why. */
const VERDICT = /^\W*(yes|no)\b[\s:.,*-]*([\s\S]*)$/i;

/**
 * A judge model's answer as a score: `yes` passes, `no` fails, with the words after the verdict as the reason.
 * An answer with no verdict fails, the answer itself given as the reason.
 */
export function verdictOf(answer: string): EvalScore {
  const match = VERDICT.exec(answer.trim());
  if (!match)
    return { passed: false, reason: `the judge gave no yes/no verdict: ${answer.trim().slice(0, 500)}` };
  const reason = match[2].trim();
  return { passed: match[1].toLowerCase() === 'yes', ...(reason && { reason }) };
}

/** What the judge model is told; the rubric and the answer follow as the user's message. */
export const JUDGE_INSTRUCTIONS =
  'You grade an answer against a rubric. Reply with "yes" if the answer meets the rubric or "no" if it does ' +
  'not, as the first word, followed by one sentence saying why.';

export const judgePrompt = (rubric: string, output: string): string =>
  `Rubric: ${rubric}\n\nAnswer: ${output}`;
