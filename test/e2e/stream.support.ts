import { connect, Socket } from 'node:net';

export type Line = Record<string, unknown> & { type: string; seq?: number };

/** An open reply stream: its lines as they arrive, parsed; `close()` hangs up like a client would. */
export class OpenStream {
  readonly lines: Line[] = [];
  status = 0;
  contentType: string | null = null;
  /** Settles when the server ends the response (true) or the connection breaks (false). */
  readonly ended: Promise<boolean>;
  private readonly abort = new AbortController();
  private readonly waiters = new Set<() => void>();

  constructor(url: string, token: string) {
    this.ended = this.read(url, token);
  }

  close(): void {
    this.abort.abort();
  }

  /** Resolves once a line matches (or the stream has ended), failing after the timeout. */
  async waitFor(match: (line: Line) => boolean, timeoutMs = 20000): Promise<Line> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no matching line in time; got ${JSON.stringify(this.lines)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.waiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Every line once the response ended. */
  async all(): Promise<Line[]> {
    await this.ended;
    return this.lines;
  }

  private async read(url: string, token: string): Promise<boolean> {
    try {
      const response = await fetch(url, { headers: { 'x-service-token': token }, signal: this.abort.signal });
      this.status = response.status;
      this.contentType = response.headers.get('content-type');
      if (!response.body) return true;
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          this.lines.push(JSON.parse(buffer.slice(0, newline)) as Line);
          buffer = buffer.slice(newline + 1);
          for (const wake of this.waiters) wake();
          this.waiters.clear();
        }
      }
      return true;
    } catch {
      return false;
    } finally {
      for (const wake of this.waiters) wake();
    }
  }
}

/** The numbered lines only (heartbeats dropped). */
export const numbered = (lines: Line[]) => lines.filter((line) => line.type !== 'heartbeat');

/** A client that sends the stream request and then never reads the response. */
export function stalledClient(baseUrl: string, path: string, token: string): Promise<Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nx-service-token: ${token}\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    socket.on('error', () => undefined);
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until(check: () => Promise<boolean> | boolean, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(25);
  }
}
