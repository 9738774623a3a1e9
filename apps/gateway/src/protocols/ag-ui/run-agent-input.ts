import {
  AI_SDK_CHAT_ID_MAX_CHARS,
  APPROVAL_REASON_MAX_CHARS,
  ApprovalDecision,
  MESSAGE_CONTENT_MAX_CHARS,
  PG_INTEGER_MAX,
} from '@app/contracts';
import { invalidProtocolInput } from '../ask-agent.use-case';

/** What a RunAgentInput (AG-UI 1.0) asks of Parley (CONTRACTS §22). */
export interface AgUiRunRequest {
  /** The client's thread id: a Parley thread id, or its own id for a conversation (bound on first use, as §17). */
  threadId: string;
  runId: string;
  /** `forwardedProps.user_id`: the end user with a service key. */
  userId?: string;
  /** `forwardedProps.agent_version`: the agent version the run's reply runs (CONTRACTS §23). */
  agentVersion?: number;
  /** The last user message's text, when the run asks the agent something. */
  content: string | null;
  /** Answers to the interrupts of the previous run. */
  resume: { callId: string; decision: ApprovalDecision; reason: string | null }[];
}

/** Where a run names the agent version it pins: an unknown one is refused there too. */
export const AG_UI_AGENT_VERSION_FIELD = ['body', 'forwardedProps', 'agent_version'];

type Fields = Record<string, unknown>;
const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const bad = (loc: (string | number)[], input: unknown, message: string) =>
  invalidProtocolInput(['body', ...loc], input, message);

/** The request's RunAgentInput, or a 422 naming the field that is wrong. */
export function parseRunAgentInput(body: unknown): AgUiRunRequest {
  if (!isFields(body)) throw bad([], body, 'the body must be a RunAgentInput object');
  const id = (name: 'threadId' | 'runId'): string => {
    const value = body[name];
    if (typeof value !== 'string' || value.length < 1 || value.length > AI_SDK_CHAT_ID_MAX_CHARS) {
      throw bad([name], value, `${name} must be a string of 1 to ${AI_SDK_CHAT_ID_MAX_CHARS} characters`);
    }
    return value;
  };
  const forwarded = isFields(body.forwardedProps) ? body.forwardedProps : {};
  if (forwarded.user_id !== undefined && typeof forwarded.user_id !== 'string') {
    throw bad(['forwardedProps', 'user_id'], forwarded.user_id, 'user_id must be a string');
  }
  const version = forwarded.agent_version;
  if (
    version !== undefined &&
    version !== null &&
    (!Number.isSafeInteger(version) || (version as number) < 1 || (version as number) > PG_INTEGER_MAX)
  ) {
    throw bad(AG_UI_AGENT_VERSION_FIELD.slice(1), version, 'agent_version must be a whole number from 1');
  }
  const resume = parseResume(body.resume);
  return {
    threadId: id('threadId'),
    runId: id('runId'),
    userId: forwarded.user_id as string | undefined,
    agentVersion: (version ?? undefined) as number | undefined,
    content: resume.length > 0 ? null : lastUserText(body.messages),
    resume,
  };
}

/** The text of the last user message (string content, or its text parts joined by newlines). */
function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) throw bad(['messages'], messages, 'messages must be an array');
  const index = messages.map((message) => (isFields(message) ? message.role : null)).lastIndexOf('user');
  if (index < 0) throw bad(['messages'], messages, 'no user message');
  const { content } = messages[index] as Fields;
  const texts =
    typeof content === 'string'
      ? [content]
      : Array.isArray(content)
        ? content.flatMap((part) =>
            isFields(part) && part.type === 'text' && typeof part.text === 'string' ? [part.text] : [],
          )
        : [];
  const text = texts.join('\n');
  const loc = ['messages', index, 'content'];
  if (!text.trim()) throw bad(loc, content, 'the last user message has no text');
  if (text.length > MESSAGE_CONTENT_MAX_CHARS) {
    throw bad(
      loc,
      text.length,
      `the last user message is longer than ${MESSAGE_CONTENT_MAX_CHARS} characters`,
    );
  }
  // PostgreSQL cannot store a NUL character, as for any message.
  if (text.includes('\u0000')) throw bad(loc, content, 'text holds a NUL character');
  return text;
}

/**
 * `resume`: an entry per interrupt, `interruptId` the waiting call's id; `resolved` with payload `{"decision":
 * "approve" | "deny", "reason"?}`, or `cancelled`, which denies the call.
 */
function parseResume(resume: unknown): AgUiRunRequest['resume'] {
  if (resume === undefined) return [];
  if (!Array.isArray(resume) || resume.length > 100) {
    throw bad(['resume'], resume, 'resume must be an array of at most 100 entries');
  }
  return resume.map((entry: unknown, index) => {
    const loc = ['resume', index];
    if (!isFields(entry) || typeof entry.interruptId !== 'string' || !entry.interruptId) {
      throw bad(loc, entry, 'each resume entry needs an interruptId');
    }
    if (entry.status === 'cancelled')
      return { callId: entry.interruptId, decision: 'deny' as const, reason: null };
    const payload = isFields(entry.payload) ? entry.payload : {};
    if (entry.status !== 'resolved' || (payload.decision !== 'approve' && payload.decision !== 'deny')) {
      throw bad(
        [...loc, 'payload', 'decision'],
        payload.decision,
        'a resolved entry answers with payload {"decision": "approve" | "deny"}',
      );
    }
    const reason = payload.reason === undefined ? null : payload.reason;
    if (reason !== null && (typeof reason !== 'string' || reason.length > APPROVAL_REASON_MAX_CHARS)) {
      throw bad(
        [...loc, 'payload', 'reason'],
        reason,
        `reason must be text of at most ${APPROVAL_REASON_MAX_CHARS} characters`,
      );
    }
    if (reason?.includes('\u0000'))
      throw bad([...loc, 'payload', 'reason'], reason, 'text holds a NUL character');
    return { callId: entry.interruptId, decision: payload.decision, reason };
  });
}
