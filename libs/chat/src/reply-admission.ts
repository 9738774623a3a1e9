/**
 * Admission control as the use cases that start a reply (StartThread, PostMessage, RegenerateReply, EditMessage)
 * ask it, first thing, before they read or store anything. Every protocol starts its replies through those use
 * cases, so a way to start a reply added later is admitted by construction, and each protocol says a refusal in
 * its own error form. The app composing these use cases provides the decision (the gateway's RunAdmission); one
 * that does not fails at start, not by letting replies through.
 */
export abstract class ReplyAdmission {
  /**
   * Runs `start` (storing the reply and enqueuing its run) when a reply may start now, else throws AtCapacityError
   * (nothing was stored; retry after its `retryAfterSeconds`) without running it. The start is timed until it
   * settles, whichever protocol called: how long starts take is one of admission's figures.
   */
  abstract admit<T>(start: () => Promise<T>): Promise<T>;
}
