import {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { LanguageModelMiddleware } from 'ai';
import { setTimeout as delay } from 'node:timers/promises';
import { backoffMs } from '@app/contracts';
import { toVendorError, VendorModelError, VendorTimeoutError } from './vendor-error';

export interface RetryPolicy {
  /** Attempts after the first. */
  maxRetries: number;
  /** First backoff; doubles each attempt. */
  baseDelayMs: number;
  /** Longest wait between attempts; a longer retry-after is not waited for. */
  maxDelayMs: number;
  /** Longest silence from the vendor (before the response, or between stream chunks). */
  idleTimeoutMs: number;
}

/** Who the failures are about and what they must never show. */
interface ResilienceOptions {
  /** The agent's model string, e.g. `openai:gpt-4o`, that prefixes error messages. */
  label: string;
  policy: RetryPolicy;
  secrets: (string | undefined)[];
  warn?: (message: string) => void;
}

/** Whether a new attempt after this part would stream something twice: the step loop has already used it. */
function emits(part: LanguageModelV3StreamPart): boolean {
  if (part.type === 'text-delta' || part.type === 'reasoning-delta') return part.delta.length > 0;
  return ['tool-call', 'tool-result', 'file', 'source'].includes(part.type);
}

/** One attempt's stream, read with the idle timeout. */
interface Attempt {
  result: LanguageModelV3StreamResult;
  read(): ReturnType<ReadableStreamDefaultReader<LanguageModelV3StreamPart>['read']>;
  cancel(): void;
}

/**
 * The AI SDK middleware that makes a vendor model one the step loop can trust: 429 (honouring retry-after), 5xx,
 * network errors and a stream that breaks before any output are retried with backoff, a bounded number of
 * times; a vendor silent for too long is abandoned; every failure reaches the loop as a VendorModelError whose
 * message says what happened. Once output was streamed a failure is final (an `error` part): retrying would
 * repeat text the user already saw.
 */
export function resilienceMiddleware(options: ResilienceOptions): LanguageModelMiddleware {
  const calls = new ResilientCalls(options);
  return {
    specificationVersion: 'v3',
    wrapGenerate: ({ model, params }) => calls.generate(model, params),
    wrapStream: ({ model, params }) => calls.stream(model, params),
  };
}

class ResilientCalls {
  private readonly warn: (message: string) => void;

  constructor(private readonly options: ResilienceOptions) {
    this.warn = options.warn ?? (() => undefined);
  }

  async generate(
    model: LanguageModelV3,
    options: LanguageModelV3CallOptions,
  ): Promise<LanguageModelV3GenerateResult> {
    const attempts = { count: 0 };
    for (;;) {
      const controller = new AbortController();
      const signal = linked(options.abortSignal, controller.signal);
      try {
        return await this.withIdleTimeout(model.doGenerate({ ...options, abortSignal: signal }), controller);
      } catch (error) {
        await this.beforeRetry(error, attempts, options.abortSignal);
      }
    }
  }

  async stream(
    model: LanguageModelV3,
    options: LanguageModelV3CallOptions,
  ): Promise<LanguageModelV3StreamResult> {
    const attempts = { count: 0 };
    let current = await this.open(model, options, attempts);
    let emitted = false;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      pull: async (controller) => {
        for (;;) {
          let failure: unknown;
          try {
            const next = await current.read();
            if (next.done) return controller.close();
            if (next.value.type !== 'error') {
              if (emits(next.value)) emitted = true;
              return controller.enqueue(next.value);
            }
            failure = next.value.error;
          } catch (error) {
            failure = error;
          }
          current.cancel();
          if (options.abortSignal?.aborted) return controller.error(failure);
          if (!emitted) {
            try {
              await this.beforeRetry(failure, attempts, options.abortSignal);
              current = await this.open(model, options, attempts);
              continue;
            } catch (error) {
              failure = error;
            }
          }
          controller.enqueue({ type: 'error', error: this.describe(failure) });
          return controller.close();
        }
      },
      cancel: () => current.cancel(),
    });
    return { ...current.result, stream };
  }

  /** Starts a streamed call, retrying while it may succeed; throws a VendorModelError when it will not. */
  private async open(
    model: LanguageModelV3,
    options: LanguageModelV3CallOptions,
    attempts: { count: number },
  ): Promise<Attempt> {
    for (;;) {
      const controller = new AbortController();
      const signal = linked(options.abortSignal, controller.signal);
      try {
        const result = await this.withIdleTimeout(
          model.doStream({ ...options, abortSignal: signal }),
          controller,
        );
        const reader = result.stream.getReader();
        return {
          result,
          read: () => this.withIdleTimeout(reader.read(), controller),
          cancel: () => {
            controller.abort();
            reader.cancel().catch(() => undefined);
          },
        };
      } catch (error) {
        await this.beforeRetry(error, attempts, options.abortSignal);
      }
    }
  }

  /** Waits the backoff before the next attempt and counts it, or throws the readable error when there is none. */
  private async beforeRetry(
    error: unknown,
    attempts: { count: number },
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (signal?.aborted) throw error;
    const { policy } = this.options;
    const attempt = attempts.count;
    const failure = this.describe(error);
    if (!failure.retryable || attempt >= policy.maxRetries) {
      throw attempt > 0
        ? new VendorModelError(
            `${failure.message} (after ${attempt + 1} attempts)`,
            false,
            null,
            failure.transient,
          )
        : failure;
    }
    const backoff = backoffMs(policy.baseDelayMs, attempt, policy.maxDelayMs);
    if (failure.retryAfterMs !== null && failure.retryAfterMs > policy.maxDelayMs) {
      throw new VendorModelError(
        `${failure.message} (it asks to retry after ${Math.ceil(failure.retryAfterMs / 1000)} s)`,
        false,
        null,
        true,
      );
    }
    const wait = Math.max(backoff, failure.retryAfterMs ?? 0);
    this.warn(`${failure.message}; attempt ${attempt + 2} of ${policy.maxRetries + 1} in ${wait} ms`);
    await delay(wait, undefined, { signal });
    attempts.count++;
  }

  private describe(error: unknown): VendorModelError {
    return toVendorError(error, this.options.label, this.options.secrets);
  }

  /** Settles like `promise`, or aborts the attempt when the vendor stays silent for the idle timeout. */
  private withIdleTimeout<T>(promise: PromiseLike<T>, controller: AbortController): Promise<T> {
    const ms = this.options.policy.idleTimeoutMs;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = new VendorTimeoutError(`no answer from the vendor for ${ms / 1000} s`);
        controller.abort(error);
        reject(error);
      }, ms);
      promise.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(controller.signal.reason instanceof VendorTimeoutError ? controller.signal.reason : error);
        },
      );
    });
  }
}

function linked(outer: AbortSignal | undefined, inner: AbortSignal): AbortSignal {
  return outer ? AbortSignal.any([outer, inner]) : inner;
}
