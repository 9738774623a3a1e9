import { IncomingMessage, ServerResponse } from 'node:http';
import { FakeHttpServer } from './fake-http-server';

/** A web site on a free port of 127.0.0.1 (`url` once started) that `page` answers, recording each path asked for. */
export class FakeSite extends FakeHttpServer {
  /** The paths asked for, in order (empty it to count afresh). */
  readonly hits: string[] = [];

  constructor(private readonly page: (request: IncomingMessage, response: ServerResponse) => void) {
    super();
  }

  /** The port it listens on. */
  get port(): number {
    return Number(new URL(this.url).port);
  }

  protected handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.hits.push(request.url ?? '');
    this.page(request, response);
    return Promise.resolve();
  }
}
