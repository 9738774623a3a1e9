import { Global, Module } from '@nestjs/common';
import { QueuesModule } from '@app/queues';
import { AdmissionInterceptor } from './admission.interceptor';
import { RunAdmission } from './run-admission';

/** One admission decision per gateway process, for every route that starts a reply (`@StartsReply()`). */
@Global()
@Module({
  imports: [QueuesModule],
  providers: [RunAdmission, AdmissionInterceptor],
  exports: [RunAdmission, AdmissionInterceptor],
})
export class AdmissionModule {}
