import { Global, Module } from '@nestjs/common';
import { ReplyAdmission } from '@app/chat';
import { QueuesModule } from '@app/queues';
import { AdmissionGuard } from './admission.guard';
import { RunAdmission } from './run-admission';

/**
 * One admission decision per gateway process, for every reply it starts: the chat use cases ask it as their
 * ReplyAdmission, whichever protocol calls them; the JSONL API's routes also ask it early (`@StartsReply()`).
 */
@Global()
@Module({
  imports: [QueuesModule],
  providers: [RunAdmission, { provide: ReplyAdmission, useExisting: RunAdmission }, AdmissionGuard],
  exports: [RunAdmission, ReplyAdmission, AdmissionGuard],
})
export class AdmissionModule {}
