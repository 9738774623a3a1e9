import { Settings } from '@app/config';
import { Caller } from '@app/identity';
import { MemoryChat, ORG } from './memory-chat';

/** The service caller of the organization every chat use-case spec acts in. */
export const caller: Caller = { orgId: ORG, keyId: 'key-1', requestId: 'req-1' };

/**
 * A chat use case over the threads `seed` stores in a MemoryChat, made by `make` from the chat's collaborators
 * and settings whose replies take at most 7 steps by default; answers the chat, to check, and the use case.
 */
export function chatWorld<T>(
  seed: (chat: MemoryChat) => void,
  make: (chat: MemoryChat, settings: Settings) => T,
): { chat: MemoryChat; useCase: T } {
  const chat = new MemoryChat();
  seed(chat);
  return { chat, useCase: make(chat, Object.assign(new Settings(), { defaultMaxSteps: 7 })) };
}
