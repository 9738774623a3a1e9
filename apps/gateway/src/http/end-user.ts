import { InvalidInputError, pydanticIssue } from '@app/contracts';

/**
 * The end user of a call on the routes of CONTRACTS §9-§11: `user_id` from the query, else from the JSON
 * body. Required (422 `missing` at the query parameter) on calls that create or change something.
 */
export function endUserOf(query: { user_id?: string }, body?: { user_id?: string }): string | undefined {
  return query.user_id ?? body?.user_id;
}

export function requireEndUser(query: { user_id?: string }, body?: { user_id?: string }): string {
  const userId = endUserOf(query, body);
  if (!userId) {
    throw new InvalidInputError([pydanticIssue('missing', ['query', 'user_id'], null)]);
  }
  return userId;
}
