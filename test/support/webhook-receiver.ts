import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** A webhook endpoint on 127.0.0.1 that keeps the JSON body of every delivery, in the order they arrived. */
export class WebhookReceiver<Delivery = { type: string; data: Record<string, unknown> }> {
  readonly delivered: Delivery[] = [];
  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.delivered.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Delivery);
      response.end('ok');
    });
  });

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  /** The URL to register as a webhook. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}
