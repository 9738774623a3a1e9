import { ForbiddenError } from '@app/contracts';
import { Caller, PinnedEndUser } from '@app/identity';

/** Why a request naming another end user than its token's is refused (403, CONTRACTS §17). */
const END_USER_MISMATCH = 'user_id differs from the end user of the token';

type Fields = Record<string, unknown>;
const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Makes the request speak for the token's end user only (CONTRACTS §17), before any use case reads it: a
 * `user_id` (query, body, or body `options`) that names someone else is 403, a missing one is filled in, so
 * every use case scopes to that end user exactly as it would for a key naming them. Likewise a thread
 * listing's `agent_ids` stays within the token's agents.
 */
export function pinEndUser(request: { query: unknown; body: unknown }, endUser: PinnedEndUser): void {
  const query = isFields(request.query) ? request.query : {};
  const body = isFields(request.body) ? request.body : undefined;
  const options = body && isFields(body.options) ? body.options : undefined;
  for (const given of [query.user_id, body?.user_id, options?.user_id]) {
    if (given !== undefined && given !== endUser.userId) {
      throw new ForbiddenError(END_USER_MISMATCH);
    }
  }
  query.user_id = endUser.userId;
  if (options) options.user_id = endUser.userId;

  if (endUser.agentIds) {
    const asked = query.agent_ids === undefined ? [] : [query.agent_ids].flat();
    if (asked.some((agentId) => !endUser.agentIds?.includes(String(agentId)))) {
      throw new ForbiddenError('agent_ids outside the agents of the token');
    }
    if (asked.length === 0) query.agent_ids = [...endUser.agentIds];
  }
  request.query = query;
}

/**
 * The end user a protocol's request acts for, where its body names them in a field of its own (the Responses
 * API's `user`, an MCP tool's `user_id` argument) that pinEndUser cannot know: an end-user token's own user (a
 * different one named is 403), else the one named, if any.
 */
export function endUserOfCaller(caller: Caller, named: string | undefined): string | undefined {
  if (!caller.endUser) return named;
  if (named !== undefined && named !== caller.endUser.userId) throw new ForbiddenError(END_USER_MISMATCH);
  return caller.endUser.userId;
}
