import { ReplyEndingPlaceholders } from './reply-ending.parameters';

/** Which replies an ending may close: any live one (its run ends it), or only one no run holds. */
export type EndableReply = 'any live reply' | 'a reply no run holds';

/**
 * What the row holds once closed: what the run wrote (content, events, questions...), or what it held already
 * (a reply cancelled before it started, or while it waited for a person, keeps the content it had).
 */
export type ClosedRow = 'final row written' | 'kept as it stands';

/**
 * Closes the reply's row: its status, `live` false, its completion time. Usage is counted here, by the trigger
 * every ending passes through as `live` goes false (parley_count_ended_reply, migration UsageOnEveryEnding), once:
 * a reply no longer live is never closed again. `after`, a FROM item of the statement that must have run first
 * (the last step stored, which the trigger reads with a fresh snapshot and so counts). Returns the closed row.
 */
export const closeReplyRowSql = (
  p: ReplyEndingPlaceholders,
  endable: EndableReply,
  row: ClosedRow,
  after?: string,
): string =>
  `UPDATE messages SET status = ${p.of('status')}, live = false,${
    row === 'final row written'
      ? ` content = ${p.of('content')}, error_code = ${p.of('errorCode')},
       questions = ${p.of('questions')}, structured_output = ${p.of('structuredOutput')}, events = ${p.of('events')},
       delta_lengths = ${p.of('deltaLengths')},`
      : ''
  } completed_at = now(), updated_at = now()
     ${after ? `FROM ${after} ` : ''}WHERE id = ${p.of('replyId')} AND live${
       endable === 'a reply no run holds' ? ` AND status IN ('pending', 'requires_action')` : ''
     }
     RETURNING messages.*`;
