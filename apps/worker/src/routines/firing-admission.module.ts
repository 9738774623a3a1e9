import { Global, Module } from '@nestjs/common';
import { ReplyAdmission } from '@app/chat';

/**
 * The worker starts replies only as routines' scheduled firings: no client is there to be told to retry, and a
 * firing refused would be a slot missed, so admission control (the gateway's, on requests) admits every one.
 */
const EVERY_FIRING_ADMITTED: ReplyAdmission = { admit: (start) => start() };

/** Global: StartThread, which asks it, sits in ThreadStartModule, below the firing's own modules. */
@Global()
@Module({
  providers: [{ provide: ReplyAdmission, useValue: EVERY_FIRING_ADMITTED }],
  exports: [ReplyAdmission],
})
export class FiringAdmissionModule {}
