import { Injectable } from '@nestjs/common';
import { NotFoundError, SourceResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { SourceRepository } from '@app/persistence';
import { SourcePresenter } from '../source.presenter';

@Injectable()
export class GetSource {
  constructor(
    private readonly sources: SourceRepository,
    private readonly presenter: SourcePresenter,
  ) {}

  async execute(caller: Caller, userId: string | undefined, pid: string): Promise<SourceResponse> {
    const scope = { orgId: caller.orgId, userId };
    const source = await this.sources.findVisible(scope, pid);
    if (!source) throw new NotFoundError('Source not found');
    return this.presenter.render(scope, source);
  }
}
