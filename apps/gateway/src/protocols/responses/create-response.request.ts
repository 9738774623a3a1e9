import { PG_INTEGER_MAX } from '@app/contracts';
import { invalidProtocolInput, MESSAGE_MAX_CHARS } from '../ask-agent.use-case';

/** POST /openai/v1/responses as Parley takes it (CONTRACTS §18). */
export interface CreateResponseRequest {
  /** The agent's id. */
  model: string;
  /** The text of the last user message of `input`: the HumanMessage. */
  content: string;
  previousResponseId?: string;
  /** The end user. */
  user?: string;
  stream: boolean;
  background: boolean;
  /** → max_steps of the reply. */
  maxToolCalls?: number;
  /** Kept on the reply and shown in its Response. */
  metadata?: Record<string, string>;
  /** `prompt.version`: the agent version the reply runs (CONTRACTS §23). */
  agentVersion?: number;
}

/** OpenAI's bounds on `metadata`. */
const METADATA_MAX_KEYS = 16;
const METADATA_KEY_MAX_CHARS = 64;
const METADATA_VALUE_MAX_CHARS = 512;

type Body = Record<string, unknown>;

const at = (field: string) => ['body', field];

/**
 * Reads the body, or throws a 400 (as the Responses API answers a bad request) naming the field. Fields Parley
 * does not use (`instructions`, `tools`, `temperature`, …) are ignored, as unknown fields are elsewhere.
 */
export function parseCreateResponse(body: unknown): CreateResponseRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidProtocolInput(['body'], body, 'The body must be a JSON object');
  }
  const fields = body as Body;
  const model = fields.model;
  if (typeof model !== 'string' || model === '') {
    throw invalidProtocolInput(at('model'), model, 'model (the agent id) is required');
  }
  const content = lastUserText(fields.input);
  if (content.length > MESSAGE_MAX_CHARS) {
    throw invalidProtocolInput(
      at('input'),
      null,
      `The message is longer than ${MESSAGE_MAX_CHARS} characters`,
    );
  }
  return {
    model,
    content,
    previousResponseId: optionalString(fields, 'previous_response_id'),
    user: optionalString(fields, 'user'),
    stream: optionalBoolean(fields, 'stream'),
    background: optionalBoolean(fields, 'background'),
    maxToolCalls: optionalPositiveInteger(fields, 'max_tool_calls', PG_INTEGER_MAX),
    metadata: optionalMetadata(fields.metadata),
    agentVersion: promptVersion(fields.prompt, model),
  };
}

/** Where `prompt.version` is: a 400 about an unknown version points there too. */
export const PROMPT_VERSION_FIELD = ['body', 'prompt', 'version'];

/**
 * OpenAI pins a stored prompt's version with `prompt: {"id", "version"}`; here the stored prompt is the agent named
 * by `model`, so `prompt.id` (optional) must name it, and `version` is one of its versions ("3" as OpenAI spells
 * it, or 3).
 */
function promptVersion(prompt: unknown, model: string): number | undefined {
  if (prompt === undefined || prompt === null) return undefined;
  if (typeof prompt !== 'object' || Array.isArray(prompt)) {
    throw invalidProtocolInput(at('prompt'), prompt, 'prompt must be an object {"id"?, "version"}');
  }
  const { id, version } = prompt as Body;
  if (id !== undefined && id !== null && id !== model) {
    throw invalidProtocolInput(['body', 'prompt', 'id'], id, 'prompt.id must be the agent named by model');
  }
  const number = typeof version === 'string' && /^\d+$/.test(version) ? Number(version) : version;
  if (!Number.isSafeInteger(number) || (number as number) < 1 || (number as number) > PG_INTEGER_MAX) {
    throw invalidProtocolInput(
      PROMPT_VERSION_FIELD,
      version,
      'prompt.version must be a version of the agent',
    );
  }
  return number as number;
}

/** `input` is a string, or an array of messages of which the last user one is taken (its text parts joined). */
function lastUserText(input: unknown): string {
  if (typeof input === 'string') {
    if (input.trim() === '') throw invalidProtocolInput(at('input'), input, 'input must not be empty');
    return input;
  }
  if (!Array.isArray(input)) {
    throw invalidProtocolInput(at('input'), input, 'input must be a string or an array of input messages');
  }
  const message = [...input]
    .reverse()
    .find(
      (item): item is Body => typeof item === 'object' && item !== null && (item as Body).role === 'user',
    );
  if (!message) throw invalidProtocolInput(at('input'), null, 'input has no user message');
  const text =
    typeof message.content === 'string'
      ? message.content
      : Array.isArray(message.content)
        ? message.content
            .filter((part): part is Body => typeof part === 'object' && part !== null)
            .filter((part) => part.type === 'input_text' && typeof part.text === 'string')
            .map((part) => part.text as string)
            .join('\n')
        : '';
  if (text.trim() === '') throw invalidProtocolInput(at('input'), null, 'The last user message has no text');
  return text;
}

function optionalString(fields: Body, field: string): string | undefined {
  const value = fields[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw invalidProtocolInput(at(field), value, `${field} must be a non-empty string`);
  }
  return value;
}

function optionalBoolean(fields: Body, field: string): boolean {
  const value = fields[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw invalidProtocolInput(at(field), value, `${field} must be a boolean`);
  return value;
}

/** A whole number from 1 to `max` (the bound of the column it is stored in). */
function optionalPositiveInteger(fields: Body, field: string, max: number): number | undefined {
  const value = fields[field];
  if (value === undefined || value === null) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > max) {
    throw invalidProtocolInput(at(field), value, `${field} must be a whole number from 1 to ${max}`);
  }
  return value as number;
}

/** Up to 16 string values under keys of up to 64 characters, each up to 512 characters. */
function optionalMetadata(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  const bad = (message: string) => invalidProtocolInput(at('metadata'), value, message);
  if (typeof value !== 'object' || Array.isArray(value)) throw bad('metadata must be an object of strings');
  const entries = Object.entries(value);
  if (entries.length > METADATA_MAX_KEYS) throw bad(`metadata has more than ${METADATA_MAX_KEYS} keys`);
  for (const [key, item] of entries) {
    if (key.length > METADATA_KEY_MAX_CHARS)
      throw bad(`a metadata key is longer than ${METADATA_KEY_MAX_CHARS}`);
    if (typeof item !== 'string' || item.length > METADATA_VALUE_MAX_CHARS) {
      throw bad(`metadata values are strings of at most ${METADATA_VALUE_MAX_CHARS} characters`);
    }
  }
  return Object.fromEntries(entries) as Record<string, string>;
}
