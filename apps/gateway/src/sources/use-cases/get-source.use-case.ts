import { Injectable } from '@nestjs/common';
import { SourceResponse } from '@app/contracts';
import { Caller } from '@app/identity';
import { SourceRepository } from '@app/persistence';
import { SourcePresenter } from '../source.presenter';
import { visibleSource } from './source-rules';

@Injectable()
export class GetSource {
  constructor(
    private readonly sources: SourceRepository,
    private readonly presenter: SourcePresenter,
  ) {}

  async execute(caller: Caller, userId: string | undefined, pid: string): Promise<SourceResponse> {
    const scope = { orgId: caller.orgId, userId };
    const source = await visibleSource(this.sources, caller, userId, pid, { live: false });
    return this.presenter.render(scope, source);
  }
}
