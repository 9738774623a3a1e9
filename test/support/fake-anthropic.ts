import { ServerResponse } from 'node:http';
import { FAKE_USAGE, FakeTurn, FakeVendor, json, pause, RecordedRequest, words } from './fake-openai';

const ERROR_TYPES: Record<number, string> = {
  401: 'authentication_error',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/**
 * Anthropic Messages (`POST /v1/messages`, `stream: true`): the SSE events Anthropic sends (message_start,
 * content_block_start/delta/stop with text_delta and input_json_delta, message_delta with usage, message_stop),
 * driven by the same script as the OpenAI fake.
 */
export class FakeAnthropic extends FakeVendor {
  constructor(readonly apiKey: string) {
    super();
  }

  /** The worker settings that send its Anthropic calls here. */
  workerEnv(): NodeJS.ProcessEnv {
    return { ANTHROPIC_BASE_URL: this.baseUrl, ANTHROPIC_API_KEY: this.apiKey };
  }

  protected async handle(request: RecordedRequest, res: ServerResponse): Promise<void> {
    if (request.path !== '/v1/messages') return json(res, 404, anthropicError(404, 'not found'));
    if (request.headers['x-api-key'] !== this.apiKey) {
      return json(res, 401, anthropicError(401, 'invalid x-api-key'));
    }
    const plan = this.script.plan(anthropicTurn(request.body.model as string, request.body.messages));
    if (plan.kind === 'status') {
      const headers: Record<string, string> = plan.status === 429 ? { 'retry-after': '0' } : {};
      return json(res, plan.status, anthropicError(plan.status, plan.message), headers);
    }
    this.sse(res);
    const marked = JSON.stringify(request.body).includes('"cache_control"');
    const event = async (type: string, data: Record<string, unknown>) => {
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      await pause(5);
    };
    await event('message_start', {
      message: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model: request.body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // Anthropic counts cache reads apart from input_tokens; the SDK adds them back into the input.
        usage: marked
          ? {
              input_tokens: FAKE_USAGE.input - FAKE_USAGE.cached,
              cache_read_input_tokens: FAKE_USAGE.cached,
              output_tokens: 1,
            }
          : { input_tokens: FAKE_USAGE.input, output_tokens: 1 },
      },
    });
    let stopReason = 'end_turn';
    if (plan.kind === 'tools') {
      for (const [index, call] of plan.calls.entries()) {
        const args = JSON.stringify(call.input);
        await event('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: `toolu_${call.id}`, name: call.name, input: {} },
        });
        for (const piece of [args.slice(0, 3), args.slice(3)]) {
          await event('content_block_delta', {
            index,
            delta: { type: 'input_json_delta', partial_json: piece },
          });
        }
        await event('content_block_stop', { index });
      }
      stopReason = 'tool_use';
    } else {
      await event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      for (const word of words(plan.text)) {
        await event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: word } });
      }
      if (plan.kind === 'cut') return this.cut(res);
      if (plan.kind === 'hang') return;
      await event('content_block_stop', { index: 0 });
    }
    await event('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: FAKE_USAGE.output },
    });
    await event('message_stop', {});
    res.end();
  }
}

function anthropicError(status: number, message: string) {
  return { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } };
}

type Block = { type: string; text?: string; content?: unknown };

/** The latest user text, and the tool_result blocks of the user turns after it. */
function anthropicTurn(model: string, messages: { role: string; content: string | Block[] }[]): FakeTurn {
  const blocks = (message: { content: string | Block[] }): Block[] =>
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  const lastText = messages
    .map((message) => message.role === 'user' && blocks(message).some((block) => block.type === 'text'))
    .lastIndexOf(true);
  const userText = blocks(messages[lastText] ?? { content: [] })
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
  const toolResults = messages
    .slice(lastText + 1)
    .flatMap((message) => blocks(message).filter((block) => block.type === 'tool_result'))
    .map((block) => (typeof block.content === 'string' ? block.content : JSON.stringify(block.content)));
  return { model, userText, toolResults };
}
