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
    const source = await this.sources.findVisible({ orgId: caller.orgId, userId }, pid);
    if (!source) throw new NotFoundError('Source not found');
    return this.presenter.render(source);
  }
}
