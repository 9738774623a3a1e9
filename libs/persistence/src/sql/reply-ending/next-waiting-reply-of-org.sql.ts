import { nextWaitingReplyOfOrgSql } from '../run-scheduling.sql';
import { ReplyEndingPlaceholders } from './reply-ending.parameters';

/**
 * The organization's oldest waiting reply, the one the slot freed by the reply closed in `closed` goes to, as a
 * lateral join named `alias`: asked only under a cap (without one, no reply waits for its organization).
 */
export const nextWaitingReplyOfOrgJoinSql = (
  p: ReplyEndingPlaceholders,
  closed: string,
  alias: string,
): string =>
  `LEFT JOIN LATERAL (${nextWaitingReplyOfOrgSql(`${closed}.org_id`)}) ${alias} ON ${p.of('orgCap')} > 0`;
