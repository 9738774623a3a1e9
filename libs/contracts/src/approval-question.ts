import { Question } from './responses/message.response';

/**
 * The Question a reply asks about a tool call that waits for a person (CONTRACTS §19): the run writes it when
 * the reply starts waiting, a decision on one of several calls leaves the others'.
 */
export function approvalQuestion(call: { name: string; arguments: Record<string, unknown> }): Question {
  return {
    prompt: `Allow ${call.name} with ${JSON.stringify(call.arguments)}?`,
    options: ['approve', 'deny'],
  };
}
