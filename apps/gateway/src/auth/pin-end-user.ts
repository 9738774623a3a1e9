import { ForbiddenError } from '@app/contracts';
import { PinnedEndUser } from '@app/identity';

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
      throw new ForbiddenError('user_id differs from the end user of the token');
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
