import { Injectable } from '@nestjs/common';
import { ConnectionRepository, SourceEntity } from '@app/persistence';
import { SourceResponse, toSourceResponse } from '@app/contracts';

/** Renders sources with their connection (deleted connections included: an archived source still names one). */
@Injectable()
export class SourcePresenter {
  constructor(private readonly connections: ConnectionRepository) {}

  async render(source: SourceEntity): Promise<SourceResponse> {
    const [rendered] = await this.renderMany([source]);
    return rendered;
  }

  async renderMany(sources: SourceEntity[]): Promise<SourceResponse[]> {
    const connections = new Map(
      (await this.connections.findByIds([...new Set(sources.map((s) => s.connectionId))])).map((c) => [
        c.id,
        c,
      ]),
    );
    return sources.flatMap((source) => {
      const connection = connections.get(source.connectionId);
      return connection ? [toSourceResponse(source, connection)] : [];
    });
  }
}
