import { Injectable } from '@nestjs/common';
import { ConnectionRepository, Scope, SourceEntity } from '@app/persistence';
import { SourceResponse, toSourceResponse } from '@app/contracts';

/**
 * Renders sources of the scope's organization with their connection (deleted connections included: an archived
 * source still names one).
 */
@Injectable()
export class SourcePresenter {
  constructor(private readonly connections: ConnectionRepository) {}

  async render(scope: Pick<Scope, 'orgId'>, source: SourceEntity): Promise<SourceResponse> {
    const [rendered] = await this.renderMany(scope, [source]);
    return rendered;
  }

  async renderMany(scope: Pick<Scope, 'orgId'>, sources: SourceEntity[]): Promise<SourceResponse[]> {
    const connections = new Map(
      (await this.connections.findByIds(scope, [...new Set(sources.map((s) => s.connectionId))])).map((c) => [
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
