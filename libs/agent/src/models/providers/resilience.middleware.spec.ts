import {
  APICallError,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import { resilienceMiddleware, RetryPolicy } from './resilience.middleware';
import { VendorModelError } from './vendor-error';

const POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 200, idleTimeoutMs: 300 };
const OPTIONS: LanguageModelV3CallOptions = {
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
};
const SECRET = 'sk-very-secret-key';

type Attempt =
  | Error
  | LanguageModelV3StreamPart[]
  | { parts: LanguageModelV3StreamPart[]; thenFail?: Error; hang?: boolean };

/** A vendor model that answers each call with the next scripted attempt. */
function scripted(attempts: Attempt[]): LanguageModelV3 & { calls: number } {
  const model = {
    specificationVersion: 'v3' as const,
    provider: 'test',
    modelId: 'm',
    supportedUrls: {},
    calls: 0,
    doGenerate: () => Promise.reject(new Error('not used')),
    async doStream(): Promise<LanguageModelV3StreamResult> {
      const attempt = attempts[model.calls++];
      if (attempt instanceof Error) throw attempt;
      const { parts, thenFail, hang } = Array.isArray(attempt) ? { parts: attempt } : attempt;
      return {
        // Pulled one part at a time, as a network stream arrives: a failure comes after the parts before it.
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          pull(controller) {
            const part = parts.shift();
            if (part) return controller.enqueue(part);
            if (thenFail) controller.error(thenFail);
            else if (!hang) controller.close();
            else return new Promise<void>(() => undefined);
          },
        }),
      };
    },
  };
  return model;
}

const httpError = (status: number, message: string, headers: Record<string, string> = {}) =>
  new APICallError({
    message,
    url: 'http://vendor/v1/chat/completions',
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: headers,
    data: { error: { message } },
  });

const text = (delta: string): LanguageModelV3StreamPart => ({ type: 'text-delta', id: '1', delta });
const finish: LanguageModelV3StreamPart = {
  type: 'finish',
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: {
    inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 2, text: 2, reasoning: 0 },
  },
};

async function collect(model: LanguageModelV3): Promise<LanguageModelV3StreamPart[]> {
  const { stream } = await model.doStream(OPTIONS);
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  return parts;
}

const wrap = (inner: LanguageModelV3, policy = POLICY) =>
  wrapLanguageModel({
    model: inner,
    middleware: resilienceMiddleware({ label: 'openai:m', policy, secrets: [SECRET, undefined] }),
  });

describe('resilienceMiddleware', () => {
  it('retries a 429, waiting what retry-after asks, then streams the answer', async () => {
    const inner = scripted([httpError(429, 'slow down', { 'retry-after': '0.1' }), [text('Hi'), finish]]);
    const started = Date.now();
    const parts = await collect(wrap(inner));
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(inner.calls).toBe(2);
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'finish']);
  });

  it('gives up after the retries with a readable error naming the status', async () => {
    const inner = scripted([httpError(503, 'down'), httpError(503, 'down'), httpError(503, 'down')]);
    await expect(collect(wrap(inner))).rejects.toThrow(
      'openai:m: the vendor is unavailable (503): down (after 3 attempts)',
    );
    expect(inner.calls).toBe(3);
  });

  it('does not retry a 401 and never repeats the key', async () => {
    const inner = scripted([httpError(401, `Incorrect API key provided: ${SECRET}`)]);
    const failure = await collect(wrap(inner)).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(VendorModelError);
    expect((failure as Error).message).toBe(
      'openai:m: the vendor refused the API key (401): Incorrect API key provided: ***',
    );
    expect(inner.calls).toBe(1);
  });

  it('does not wait for a retry-after longer than the longest delay', async () => {
    const inner = scripted([httpError(429, 'quota', { 'retry-after': '3600' })]);
    await expect(collect(wrap(inner))).rejects.toThrow('(it asks to retry after 3600 s)');
    expect(inner.calls).toBe(1);
  });

  it('retries a stream that breaks before any output, without repeating anything', async () => {
    const inner = scripted([
      { parts: [{ type: 'stream-start', warnings: [] }], thenFail: new TypeError('terminated') },
      [text('Hello'), finish],
    ]);
    const parts = await collect(wrap(inner));
    expect(parts.filter((part) => part.type === 'text-delta')).toEqual([text('Hello')]);
    expect(inner.calls).toBe(2);
  });

  it('ends with an error part when the stream breaks after output', async () => {
    const inner = scripted([{ parts: [text('Hel')], thenFail: new TypeError('terminated') }, [text('x')]]);
    const parts = await collect(wrap(inner));
    expect(parts[0]).toEqual(text('Hel'));
    expect(parts[1]).toMatchObject({ type: 'error' });
    expect((parts[1] as { error: Error }).error.message).toBe(
      "openai:m: the vendor's stream broke off: terminated",
    );
    expect(inner.calls).toBe(1);
  });

  it('turns an error event of the vendor after output into a readable error part', async () => {
    const inner = scripted([
      [text('a'), { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }],
    ]);
    const parts = await collect(wrap(inner));
    expect((parts[1] as { error: Error }).error.message).toBe(
      'openai:m: the vendor reported overloaded_error: Overloaded',
    );
  });

  it('abandons a vendor silent for the idle timeout instead of hanging', async () => {
    const inner = scripted([{ parts: [text('a')], hang: true }]);
    const parts = await collect(wrap(inner));
    expect((parts[1] as { error: Error }).error.message).toBe(
      'openai:m: no answer from the vendor for 0.3 s',
    );
  });

  it('stops retrying when the run is cancelled', async () => {
    const inner = scripted([httpError(500, 'boom'), [text('late')]]);
    const controller = new AbortController();
    controller.abort();
    await expect(wrap(inner).doStream({ ...OPTIONS, abortSignal: controller.signal })).rejects.toThrow(
      'boom',
    );
    expect(inner.calls).toBe(1);
  });
});
