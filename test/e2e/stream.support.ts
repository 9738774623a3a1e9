import { spawn } from 'node:child_process';
import { connect, Socket } from 'node:net';
import { responseChecker } from '../support/openapi-responses';

export type Line = Record<string, unknown> & { type: string; seq?: number };

/**
 * An open reply stream: its lines as they arrive, parsed; `close()` hangs up like a client would. Each line is
 * checked against the gateway's OpenAPI document; a line off it fails the test at its next `waitFor` or `all`.
 */
export class OpenStream {
  readonly lines: Line[] = [];
  status = 0;
  contentType: string | null = null;
  /** Settles when the server ends the response (true) or the connection breaks (false). */
  readonly ended: Promise<boolean>;
  private readonly abort = new AbortController();
  private readonly waiters = new Set<() => void>();
  private mismatch: string | null = null;

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
      this.assertDocumented();
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
    this.assertDocumented();
    return this.lines;
  }

  private assertDocumented(): void {
    if (this.mismatch) throw new Error(`Stream line does not match the OpenAPI document: ${this.mismatch}`);
  }

  private async read(url: string, token: string): Promise<boolean> {
    try {
      const response = await fetch(url, { headers: { 'x-service-token': token }, signal: this.abort.signal });
      this.status = response.status;
      this.contentType = response.headers.get('content-type');
      const checker = await responseChecker(new URL(url).origin);
      if (!response.body) return true;
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          this.mismatch ??= checker?.problem('GET', url, this.status, this.contentType, line) ?? null;
          this.lines.push(JSON.parse(line) as Line);
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

/**
 * The final Message a seeded message.completed line carries, shaped as the worker writes it (CONTRACTS §5):
 * tests that write lines to Redis themselves stand in for the worker, so their lines keep the contract too.
 */
export function finalMessage(
  ids: { replyId: string; threadId: string },
  content: string,
): Record<string, unknown> {
  return {
    id: ids.replyId,
    thread_id: ids.threadId,
    role: 'assistant',
    content,
    error_code: null,
    questions: null,
    live: false,
    status: 'success',
    events: [],
    structured_output: null,
    files: [],
    agent: null,
  };
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

/** A client that has sent its request and reads nothing until asked to. */
export interface SlowReader {
  /** Reads what is left, and resolves with every byte of the response once the server has closed it. */
  readAll(): Promise<Buffer>;
  destroy(): void;
}

const SLOW_READER = String.raw`
import socket, sys
host, port, request = sys.argv[1], int(sys.argv[2]), sys.argv[3]
connection = socket.socket()
connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
connection.connect((host, port))
connection.sendall(request.encode())
sys.stderr.write('sent\n')
sys.stderr.flush()
sys.stdin.readline()
try:
    while True:
        chunk = connection.recv(65536)
        if not chunk:
            break
        sys.stdout.buffer.write(chunk)
except ConnectionResetError:
    pass
sys.stdout.flush()
`;

/**
 * A slow reader as on a real network: its socket's receive buffer is 8 KiB, so the server sees it stall once
 * its own send buffer is full. (A Node socket cannot set SO_RCVBUF, and on loopback the kernel gives a paused
 * one tens of MiB, so a server would never see a paused Node client stall on a reply of a few MiB.)
 */
export function slowReader(baseUrl: string, path: string, token: string): Promise<SlowReader> {
  const { hostname, port } = new URL(baseUrl);
  const request = `GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nx-service-token: ${token}\r\n\r\n`;
  const child = spawn('python3', ['-c', SLOW_READER, hostname, port, request]);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stderr.once('data', () =>
      resolve({
        readAll: async () => {
          child.stdin.write('\n');
          await exited;
          return Buffer.concat(chunks);
        },
        destroy: () => void child.kill(),
      }),
    );
  });
}
