import { IsOptional, IsString } from 'class-validator';
import { MaxChars, Nullable, OneOf, Rules } from './rules';

/*
 * Options that every request starting a reply spells alike (POST /chat, POST /chat/{thread_id}, a regenerate or
 * an edit, a routine's firing): their rules once, so the 422s and the OpenAPI document say them alike too.
 */

export const MEMORY_NAMESPACE_MAX_CHARS = 128;

/** What a follow-up does when its thread still has a live reply (CONTRACTS §12). */
export const MULTITASK_STRATEGIES = ['enqueue', 'reject', 'interrupt'] as const;
export type MultitaskStrategy = (typeof MULTITASK_STRATEGIES)[number];

/** `options.user_id` of a call on a thread: when given, it must be the thread's owner. */
export const ThreadOwnerOption = () => Rules(IsOptional(), Nullable(), IsString());

/** `options.memory_namespace`: a namespace name, or null (as absent). */
export const MemoryNamespaceOption = () =>
  Rules(IsOptional(), Nullable(), IsString(), MaxChars(MEMORY_NAMESPACE_MAX_CHARS));

/** `options.multitask_strategy`: one of MULTITASK_STRATEGIES, or null (as absent). */
export const MultitaskStrategyOption = () => Rules(IsOptional(), Nullable(), OneOf(MULTITASK_STRATEGIES));
