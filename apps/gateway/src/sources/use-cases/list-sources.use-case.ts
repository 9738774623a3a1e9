import { Injectable } from '@nestjs/common';
import { SourceResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { SourceRepository } from '@app/persistence';
import { SourcePresenter } from '../source.presenter';

/** GET /dc/sources: newest first; private ones only for their creator. */
@Injectable()
export class ListSources {
  constructor(
    private readonly sources: SourceRepository,
    private readonly presenter: SourcePresenter,
  ) {}

  async execute(caller: Caller, userId: string | undefined): Promise<SourceResponse[]> {
    const scope = { orgId: caller.orgId, userId };
    return this.presenter.renderMany(scope, await this.sources.listVisible(scope));
  }
}
