import { join } from 'node:path';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Piscina } from 'piscina';
import { Settings } from '@app/config';
import type { ParseTask } from './parse-worker';

/** A parse function of this service, named so a thread can load it: `{ module: __filename, name }`. */
export interface ParseFunction {
  module: string;
  name: string;
}

/** The parse stopped at its time or memory limit; the thread that ran it was terminated. */
export class ParseLimitError extends Error {}

/**
 * Parsing of untrusted content (web pages, documents, attachments) off the event loop: each parse runs in a
 * worker thread of a small pool (piscina) with a memory limit, and a parse past its deadline has its thread
 * terminated, so a page or file crafted to be slow to parse stalls neither the process nor other tenants' runs.
 *
 * From TypeScript sources (the unit tests under ts-jest) a thread cannot load the parse module, so the parse
 * runs in the process with the same deadline: only the compiled service gets the isolation.
 */
@Injectable()
export class UntrustedParsing implements OnApplicationShutdown {
  private pool: Piscina | null = null;

  constructor(private readonly settings: Settings) {}

  async run<T>(parse: ParseFunction, args: unknown[], timeoutMs: number): Promise<T> {
    if (parse.module.endsWith('.ts')) return this.runInProcess<T>(parse, args, timeoutMs);
    const deadline = AbortSignal.timeout(timeoutMs);
    const task: ParseTask = { module: parse.module, name: parse.name, args };
    try {
      return (await this.threads().run(task, { signal: deadline })) as T;
    } catch (error) {
      if (deadline.aborted) throw new ParseLimitError(`parsing took longer than ${timeoutMs} ms`);
      if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new ParseLimitError(`parsing needed more than ${this.settings.parseThreadMemoryMb} MiB`);
      }
      throw error;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool?.destroy();
    this.pool = null;
  }

  /** Started on first use: a gateway that never parses has no threads. */
  private threads(): Piscina {
    this.pool ??= new Piscina({
      filename: join(__dirname, 'parse-worker.js'),
      minThreads: 0,
      maxThreads: this.settings.parseThreads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: this.settings.parseThreadMemoryMb },
    });
    return this.pool;
  }

  private async runInProcess<T>(parse: ParseFunction, args: unknown[], timeoutMs: number): Promise<T> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const run = (require(parse.module) as Record<string, (...values: unknown[]) => Promise<T> | T>)[
      parse.name
    ];
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new ParseLimitError(`parsing took longer than ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([Promise.resolve().then(() => run(...args)), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }
}
