/**
 * Admission control as the use cases that start a reply (StartThread, PostMessage, RegenerateReply, EditMessage)
 * ask it, first thing, before they read or store anything. Every protocol starts its replies through those use
 * cases, so a way to start a reply added later is admitted by construction, and each protocol says a refusal in
 * its own error form. The app composing these use cases provides the decision (the gateway's RunAdmission); one
 * that does not fails at start, not by letting replies through.
 */
export abstract class ReplyAdmission {
  /** Throws AtCapacityError (nothing was stored; retry after its `retryAfterSeconds`) when a reply may not start now. */
  abstract admitReply(): void;
}
