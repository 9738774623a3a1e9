import { ForbiddenError } from '@app/contracts';
import { endUserOfCaller, pinEndUser } from './pin-end-user';

const alice = { userId: 'alice', agentIds: null, memoryNamespaces: [] };

describe('pinEndUser', () => {
  it("fills in the token's user where a request names none: query and body options", () => {
    const request = { query: {}, body: { message: { content: 'hi' }, options: { agent_id: 'a' } } };
    pinEndUser(request, alice);
    expect(request.query).toEqual({ user_id: 'alice' });
    expect(request.body.options).toEqual({ agent_id: 'a', user_id: 'alice' });
  });

  it('accepts the same user named anywhere', () => {
    const request = {
      query: { user_id: 'alice' },
      body: { user_id: 'alice', options: { user_id: 'alice' } },
    };
    expect(() => pinEndUser(request, alice)).not.toThrow();
  });

  it.each([
    ['the query', { query: { user_id: 'bob' }, body: undefined }],
    ['the body', { query: {}, body: { user_id: 'bob' } }],
    ['body options', { query: {}, body: { options: { user_id: 'bob' } } }],
    ['a repeated query parameter', { query: { user_id: ['alice', 'bob'] }, body: undefined }],
  ])('refuses another user in %s (403)', (_where, request) => {
    expect(() => pinEndUser(request, alice)).toThrow(ForbiddenError);
  });

  it("limits a listing's agent_ids to the token's, implying them when absent", () => {
    const limited = { userId: 'alice', agentIds: ['a1', 'a2'], memoryNamespaces: [] };
    const implied = { query: {} as Record<string, unknown>, body: undefined };
    pinEndUser(implied, limited);
    expect(implied.query.agent_ids).toEqual(['a1', 'a2']);
    expect(() => pinEndUser({ query: { agent_ids: 'a1' }, body: undefined }, limited)).not.toThrow();
    expect(() => pinEndUser({ query: { agent_ids: ['a1', 'a3'] }, body: undefined }, limited)).toThrow(
      ForbiddenError,
    );
  });
});

describe('endUserOfCaller', () => {
  const key = { orgId: 'o', keyId: 'k', requestId: 'r' };
  const token = { ...key, endUser: alice };

  it("is the token's user, named or implied, and the named one with a key", () => {
    expect(endUserOfCaller(token, undefined)).toBe('alice');
    expect(endUserOfCaller(token, 'alice')).toBe('alice');
    expect(endUserOfCaller(key, 'bob')).toBe('bob');
    expect(endUserOfCaller(key, undefined)).toBeUndefined();
  });

  it('refuses another user named with a token (403)', () => {
    expect(() => endUserOfCaller(token, 'bob')).toThrow(ForbiddenError);
  });
});
