import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { sendJson } from './fake-oauth';

/**
 * A vendor's API faked on a free port of 127.0.0.1 (`url` once started): a request its handler fails on is
 * answered 500 with the error's message.
 */
export abstract class FakeHttpServer {
  private server?: Server;
  url = '';

  protected abstract handle(request: IncomingMessage, response: ServerResponse): Promise<void>;

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: Error) =>
        sendJson(response, 500, { error: error.message }),
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
