import { NotFoundError } from '@app/contracts';
import { Caller } from '@app/identity';
import { nameFrom, threadScope } from './chat.rules';

const caller: Caller = { orgId: 'org-1', keyId: 'key-1', requestId: 'req-1' };

describe('threadScope', () => {
  it("scopes to the caller's organization, and to the end user when one is named, however many times", () => {
    expect(threadScope(caller)).toEqual({ orgId: 'org-1', userId: undefined });
    expect(threadScope(caller, undefined, null)).toEqual({ orgId: 'org-1', userId: undefined });
    expect(threadScope(caller, 'alice', 'alice')).toEqual({ orgId: 'org-1', userId: 'alice' });
    expect(threadScope(caller, null, 'alice')).toEqual({ orgId: 'org-1', userId: 'alice' });
  });

  it('answers 404, as for a foreign thread, when a call names two different end users', () => {
    expect(() => threadScope(caller, 'alice', 'bob')).toThrow(new NotFoundError('Thread not found'));
  });
});

describe('nameFrom', () => {
  it('names a thread by the first non-blank line of its first message, trimmed', () => {
    expect(nameFrom('\r\n   \r\n  Plan the trip \r\nday by day')).toBe('Plan the trip');
  });

  it('cuts the name at 80 characters, counting a character outside the BMP as one', () => {
    const name = nameFrom(`${'😀'.repeat(79)}ab`);
    expect(Array.from(name)).toHaveLength(80);
    expect(name.endsWith('😀a')).toBe(true);
  });

  it('calls a message with no text "New thread"', () => {
    expect(nameFrom('  \n\t\n')).toBe('New thread');
  });
});
