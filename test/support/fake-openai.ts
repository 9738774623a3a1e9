import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * What a fake vendor does for one request, decided from the conversation it is sent (the same script for the
 * OpenAI and the Anthropic fakes). Lines of the latest user text:
 *
 * - `call NAME {json}`: asks for tool NAME with those arguments (several lines: several calls in one step);
 *   once the results are in the conversation, answers `Results: <each result>`.
 * - `status CODE [N] [@MODEL]`: answers HTTP CODE (429 with `retry-after: 0`) to the first N requests (default:
 *   all), or only to requests for model MODEL (the vendor's model id) when it is named.
 * - `cut`: streams `Partial answer` and then drops the connection.
 * - `cut-early [N]`: drops the connection before any output, on the first N requests (default 1).
 * - `hang`: streams `Waiting` and then sends nothing more.
 * - `reverse TEXT`: answers `Vendor says: ` and TEXT written backwards (a reply holding words its prompt does not).
 * - `verdict yes|no REASON`: answers `<yes|no>. REASON`, as a judge model grading a rubric would.
 * - anything else: answers `Vendor says: <text>`.
 */
export type FakePlan =
  | { kind: 'text'; text: string }
  | { kind: 'tools'; calls: { id: string; name: string; input: Record<string, unknown> }[] }
  | { kind: 'status'; status: number; message: string }
  | { kind: 'cut'; text: string }
  | { kind: 'hang'; text: string };

export interface FakeTurn {
  /** The vendor's model id the request names. */
  model: string;
  userText: string;
  /** Tool results sent after the latest user text, as text. */
  toolResults: string[];
}

/**
 * Input and output tokens every successful answer reports, so tests know what usage to expect; of the input,
 * `cached` is reported as read from the prompt cache when the request is marked for it (cache_control,
 * prompt_cache_key).
 */
export const FAKE_USAGE = { input: 100, output: 20, cached: 40 };

export class FakeScript {
  private readonly seen = new Map<string, number>();

  plan(turn: FakeTurn): FakePlan {
    const lines = turn.userText.split('\n').map((line) => line.trim());
    const status = lines.map((line) => /^status (\d{3})(?: (\d+))?(?: @(\S+))?$/.exec(line)).find(Boolean);
    // Requests for another model than the one a status names are counted apart from it.
    const seenKey =
      status?.[3] && status[3] !== turn.model ? `${turn.userText}\n${turn.model}` : turn.userText;
    const count = (this.seen.get(seenKey) ?? 0) + 1;
    this.seen.set(seenKey, count);
    if (status && (!status[3] || status[3] === turn.model) && count <= Number(status[2] ?? Infinity)) {
      const code = Number(status[1]);
      return { kind: 'status', status: code, message: STATUS_MESSAGES[code] ?? `fake error ${code}` };
    }
    const cutEarly = lines.map((line) => /^cut-early(?: (\d+))?$/.exec(line)).find(Boolean);
    if (cutEarly && count <= Number(cutEarly[1] ?? 1)) return { kind: 'cut', text: '' };
    if (lines.includes('cut')) return { kind: 'cut', text: 'Partial answer' };
    if (lines.includes('hang')) return { kind: 'hang', text: 'Waiting' };
    const reverse = lines.map((line) => /^reverse (.+)$/.exec(line)).find(Boolean);
    if (reverse) return { kind: 'text', text: `Vendor says: ${[...reverse[1]].reverse().join('')}` };
    const verdict = lines.map((line) => /^verdict (yes|no)\b\s*(.*)$/.exec(line)).find(Boolean);
    if (verdict) return { kind: 'text', text: `${verdict[1]}. ${verdict[2]}` };
    const calls = lines.flatMap((line, index) => {
      const match = /^call (\S+)\s*(.*)$/.exec(line);
      return match ? [{ id: `call_${index + 1}`, name: match[1], input: JSON.parse(match[2] || '{}') }] : [];
    });
    if (calls.length > 0) {
      return turn.toolResults.length === 0
        ? { kind: 'tools', calls }
        : { kind: 'text', text: `Results: ${turn.toolResults.join(' | ')}` };
    }
    return { kind: 'text', text: `Vendor says: ${turn.userText}` };
  }
}

const STATUS_MESSAGES: Record<number, string> = {
  401: 'Incorrect API key provided',
  429: 'Rate limit reached, slow down',
  500: 'The server had an error while processing your request',
  503: 'The engine is currently overloaded',
};

/** Pieces of a text a word each, joining back to the text. */
export const words = (text: string): string[] => text.match(/\s*\S+\s*/g) ?? [];

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, any>;
}

/**
 * A local HTTP server of a fake vendor: its base URL, the requests it got, and close(). holdAnswers() makes it as
 * slow as a test needs: each request is recorded as it arrives and answered only at release().
 */
export abstract class FakeVendor {
  readonly requests: RecordedRequest[] = [];
  protected readonly script = new FakeScript();
  private server?: Server;
  private readonly open = new Set<ServerResponse>();
  private held: Promise<void> | null = null;
  private releaseHeld?: () => void;
  baseUrl = '';

  /** From now on every request waits, recorded, for release() before it is answered. */
  holdAnswers(): void {
    this.held ??= new Promise((resolve) => (this.releaseHeld = resolve));
  }

  /** Answers the held requests, and the next ones at once. */
  release(): void {
    this.held = null;
    this.releaseHeld?.();
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.receive(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  protected abstract handle(request: RecordedRequest, res: ServerResponse): Promise<void>;

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = {
      path: req.url ?? '',
      headers: req.headers,
      body: JSON.parse(Buffer.concat(chunks).toString() || '{}'),
    };
    this.requests.push(request);
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    if (this.held) await this.held;
    await this.handle(request, res);
  }

  /** Starts an SSE response. */
  protected sse(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  }

  /** A cut connection: the client sees the stream break, not end. */
  protected cut(res: ServerResponse): void {
    res.socket?.destroy();
  }
}

/**
 * OpenAI chat completions (`POST /v1/chat/completions`): with `stream: true`, SSE chunks as OpenAI sends them;
 * without, one `chat.completion` (what a thread's summary asks for), or a 500 while `failUnstreamed` is set.
 */
export class FakeOpenAI extends FakeVendor {
  failUnstreamed = false;

  constructor(readonly apiKey: string) {
    super();
  }

  /** The worker settings that send its OpenAI calls here. */
  workerEnv(): NodeJS.ProcessEnv {
    return { OPENAI_BASE_URL: this.baseUrl, OPENAI_API_KEY: this.apiKey };
  }

  protected async handle(request: RecordedRequest, res: ServerResponse): Promise<void> {
    if (request.path !== '/v1/chat/completions') return json(res, 404, { error: { message: 'not found' } });
    if (request.headers.authorization !== `Bearer ${this.apiKey}`) {
      return json(res, 401, {
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error' },
      });
    }
    const plan = this.script.plan(openaiTurn(request.body.model as string, request.body.messages));
    if (request.body.stream !== true) return this.complete(request, res, plan);
    if (plan.kind === 'status') {
      const headers: Record<string, string> = plan.status === 429 ? { 'retry-after': '0' } : {};
      return json(res, plan.status, { error: { message: plan.message, type: 'fake_error' } }, headers);
    }
    this.sse(res);
    const model = request.body.model as string;
    const chunk = async (choice: Record<string, unknown> | null, usage?: Record<string, unknown>) => {
      const body = {
        id: 'chatcmpl-fake',
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: choice ? [{ index: 0, ...choice }] : [],
        ...(usage ? { usage } : {}),
      };
      res.write(`data: ${JSON.stringify(body)}\n\n`);
      await pause(5);
    };
    await chunk({ delta: { role: 'assistant', content: '' }, finish_reason: null });
    if (plan.kind === 'tools') {
      for (const [index, call] of plan.calls.entries()) {
        const args = JSON.stringify(call.input);
        await chunk({
          delta: {
            tool_calls: [
              { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
            ],
          },
          finish_reason: null,
        });
        // The arguments arrive in two pieces, as vendors split them.
        for (const piece of [args.slice(0, 3), args.slice(3)]) {
          await chunk({
            delta: { tool_calls: [{ index, function: { arguments: piece } }] },
            finish_reason: null,
          });
        }
      }
      await chunk({ delta: {}, finish_reason: 'tool_calls' });
    } else {
      for (const word of words(plan.text)) await chunk({ delta: { content: word }, finish_reason: null });
      if (plan.kind === 'cut') return this.cut(res);
      if (plan.kind === 'hang') return;
      await chunk({ delta: {}, finish_reason: 'stop' });
    }
    const { input, output, cached } = FAKE_USAGE;
    await chunk(null, {
      prompt_tokens: input,
      completion_tokens: output,
      total_tokens: input + output,
      ...(request.body.prompt_cache_key ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
    });
    res.end('data: [DONE]\n\n');
  }

  private complete(request: RecordedRequest, res: ServerResponse, plan: FakePlan): void {
    if (this.failUnstreamed || plan.kind === 'status') {
      return json(res, 500, { error: { message: STATUS_MESSAGES[500], type: 'fake_error' } });
    }
    const text = plan.kind === 'tools' ? '' : plan.text;
    json(res, 200, completion(request.body.model as string, text));
  }
}

/** The fake's unstreamed answer: a plan's text as one chat.completion. */
function completion(model: string, text: string): Record<string, unknown> {
  const { input, output } = FAKE_USAGE;
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
  };
}

function openaiTurn(model: string, messages: { role: string; content: unknown }[]): FakeTurn {
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  const content = messages[lastUser]?.content;
  const userText =
    typeof content === 'string'
      ? content
      : ((content as { type: string; text?: string }[]) ?? []).map((part) => part.text ?? '').join('');
  const toolResults = messages
    .slice(lastUser + 1)
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));
  return { model, userText, toolResults };
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
