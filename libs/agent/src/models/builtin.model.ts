import {
  JSONObject,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';

/** What the lines of a user message ask the builtin model to do (CONTRACTS §6). */
interface Directives {
  tools: { name: string; input: string }[];
  loop: boolean;
  questions: { prompt: string; options: string[] }[];
  json: JSONObject | null;
  say: string | null;
  sleepMs: number;
  fail: boolean;
  /** Lines that are not directives. */
  plain: string[];
}

const DIRECTIVE = /^\/(tool|loop|ask|json|say|sleep|fail)(?:\s(.*))?$/;

export function parseDirectives(content: string): Directives {
  const directives: Directives = {
    tools: [],
    loop: false,
    questions: [],
    json: null,
    say: null,
    sleepMs: 0,
    fail: false,
    plain: [],
  };
  for (const line of content.split(/\r?\n/)) {
    const match = DIRECTIVE.exec(line.trimStart());
    if (!match) {
      if (line.trim()) directives.plain.push(line.trim());
      continue;
    }
    const rest = match[2] ?? '';
    switch (match[1]) {
      case 'tool': {
        const [, name, input] = /^(\S+)\s*(.*)$/.exec(rest.trim()) ?? [];
        if (name) directives.tools.push({ name, input: input?.trim() || '{}' });
        break;
      }
      case 'loop':
        directives.loop = true;
        break;
      case 'ask': {
        const [prompt, ...options] = rest.split('|').map((part) => part.trim());
        directives.questions.push({ prompt, options: options.filter(Boolean) });
        break;
      }
      case 'json':
        directives.json = parseObject(rest);
        break;
      case 'say':
        directives.say = directives.say === null ? rest : `${directives.say}\n${rest}`;
        break;
      case 'sleep':
        directives.sleepMs = Math.max(0, Math.min(Number.parseInt(rest, 10) || 0, 60000));
        break;
      case 'fail':
        directives.fail = true;
        break;
    }
  }
  return directives;
}

function parseObject(text: string): JSONObject | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as JSONObject)
      : null;
  } catch {
    return null;
  }
}

/** Pieces of a text, one word each (with its surrounding spaces), that join back to exactly the text. */
export function splitWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}

/** Tokens as the builtin model counts them: one a word. */
const countWords = (text: string): number => text.match(/\S+/g)?.length ?? 0;

/** A stream part and how long to wait before it (`/sleep`). */
type Timed = { part: LanguageModelV3StreamPart; waitMs: number };

/** Why a builtin call failed, as the reply's content will say. */
class BuiltinModelFailure extends Error {}

/**
 * The default model (CONTRACTS §6): offline and deterministic, an AI SDK LanguageModelV3 like any vendor's, so
 * the step loop drives every model the same way. It acts on the directives of the latest user message; how far
 * it got in this turn it reads from the prompt (the tool results after that message), so a resumed run asks it
 * again and gets the same answer.
 */
export class BuiltinModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'parley';
  readonly modelId = 'builtin';
  readonly supportedUrls = {};

  /** Only a thread's summary (CONTRACTS §19) is asked of it unstreamed: a deterministic extract of the transcript. */
  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    if (options.providerOptions?.parley?.task !== SUMMARY_TASK)
      throw new BuiltinModelFailure('the builtin model only streams');
    const transcript = options.prompt
      .filter((message) => message.role === 'user')
      .map(textOf)
      .join('\n\n');
    const text = extractSummary(transcript);
    const { usage, finishReason } = finish('stop', countWords(transcript), countWords(text));
    return { content: [{ type: 'text', text }], usage, finishReason, warnings: [] };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const parts = this.answer(options);
    const signal = options.abortSignal;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      async start(controller) {
        try {
          for (const { part, waitMs } of parts) {
            if (waitMs > 0) await sleep(waitMs, signal);
            signal?.throwIfAborted();
            controller.enqueue(part);
          }
          controller.close();
        } catch (error) {
          controller.error(error);
        }
      },
    });
    return { stream };
  }

  private answer(options: LanguageModelV3CallOptions): Timed[] {
    const { prompt } = options;
    const lastUser = prompt.map((message) => message.role).lastIndexOf('user');
    // Directives come from the user's own words (the first text part); later parts are attached files.
    const [said = '', ...attached] = lastUser < 0 ? [] : textParts(prompt[lastUser]);
    const directives = parseDirectives(said);
    const results = toolResultsAfter(prompt, lastUser);
    const inputTokens = countWords(prompt.map(textOf).join(' '));
    const parts: Timed[] = [];
    const push = (part: LanguageModelV3StreamPart, waitMs = 0) => void parts.push({ part, waitMs });
    push({ type: 'stream-start', warnings: [] });
    const attachments = attached.join(' ');

    if (directives.fail) {
      push({ type: 'error', error: new BuiltinModelFailure('the builtin model was asked to fail (/fail)') });
      push(finish('error', inputTokens, 0));
      return parts;
    }

    const mayCallTools = (options.tools?.length ?? 0) > 0 && options.toolChoice?.type !== 'none';
    const call = directives.loop ? { name: 'clock', input: '{}' } : directives.tools[results.length];
    if (mayCallTools && call) {
      const toolCallId = `call_${results.length + 1}`;
      push({ type: 'tool-call', toolCallId, toolName: call.name, input: call.input });
      push(finish('tool-calls', inputTokens, countWords(`${call.name} ${call.input}`)));
      return parts;
    }

    const text = directives.say ?? summary(directives, results, attachments);
    push({ type: 'text-start', id: 'text' });
    splitWords(text).forEach((delta, index) =>
      push({ type: 'text-delta', id: 'text', delta }, index > 0 ? directives.sleepMs : 0),
    );
    push({ type: 'text-end', id: 'text' });
    const end = finish('stop', inputTokens, countWords(text));
    if (directives.questions.length > 0 || directives.json) {
      end.providerMetadata = {
        parley: {
          ...(directives.questions.length > 0 ? { questions: directives.questions } : {}),
          ...(directives.json ? { structuredOutput: directives.json } : {}),
        },
      };
    }
    push(end);
    return parts;
  }
}

/** What a model call is when it writes a thread's summary: `providerOptions.parley.task`. */
export const SUMMARY_TASK = 'summary';

/** Words of each transcript entry the builtin model's summary keeps. */
const SUMMARY_WORDS_PER_ENTRY = 12;

/** The builtin model's summary: the first words of each entry (entries are separated by blank lines). */
function extractSummary(transcript: string): string {
  return transcript
    .split(/\n\s*\n/)
    .map((entry) => entry.split(/\s+/).filter(Boolean))
    .filter((words) => words.length > 0)
    .map(
      (words) =>
        words.slice(0, SUMMARY_WORDS_PER_ENTRY).join(' ') +
        (words.length > SUMMARY_WORDS_PER_ENTRY ? ' …' : ''),
    )
    .join('\n');
}

/** Words of attached files the builtin model repeats back: enough to show it read them. */
const ATTACHMENT_ECHO_WORDS = 200;

function summary(
  directives: Directives,
  results: { name: string; output: string }[],
  attachments: string,
): string {
  const lines = results.map((result) => `Tool ${result.name} returned ${result.output}.`);
  lines.push(...directives.questions.map((question) => question.prompt));
  if (directives.json) lines.push('The structured output is attached.');
  if (lines.length === 0) {
    const said = directives.plain.join(' ');
    lines.push(said ? `You said: ${said}` : 'Hello! How can I help?');
  }
  if (attachments) {
    const words = attachments.split(/\s+/).filter(Boolean);
    const echoed = words.slice(0, ATTACHMENT_ECHO_WORDS).join(' ');
    lines.push(`I read: ${echoed}${words.length > ATTACHMENT_ECHO_WORDS ? ' …' : ''}`);
  }
  return lines.join('\n');
}

/** The text parts of a message, in order. */
function textParts(message: LanguageModelV3Prompt[number]): string[] {
  if (typeof message.content === 'string') return [message.content];
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
}

function textOf(message: LanguageModelV3Prompt[number]): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'tool-result') return outputText(part.output);
      return '';
    })
    .join(' ');
}

function toolResultsAfter(prompt: LanguageModelV3Prompt, index: number): { name: string; output: string }[] {
  const results: { name: string; output: string }[] = [];
  for (const message of prompt.slice(index + 1)) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result') results.push({ name: part.toolName, output: outputText(part.output) });
    }
  }
  return results;
}

function outputText(output: LanguageModelV3ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'content':
      // Images stay placeholders: the builtin model reads text only.
      return output.value
        .map((part) => (part.type === 'text' ? part.text : `[${part.type.split('-')[0]} omitted]`))
        .join('\n');
    default:
      return '';
  }
}

function finish(
  reason: 'stop' | 'tool-calls' | 'error',
  inputTokens: number,
  outputTokens: number,
): Extract<LanguageModelV3StreamPart, { type: 'finish' }> {
  const usage: LanguageModelV3Usage = {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
  };
  return { type: 'finish', usage, finishReason: { unified: reason, raw: reason } };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
