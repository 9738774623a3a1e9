/**
 * Queue names and job payloads. The names are persisted in Redis (as part of every job's key): renaming one
 * orphans the jobs already queued under the old name.
 */
export const QUEUE = {
  agentRun: 'agent-run',
  sourceSync: 'source-sync',
  webhookDelivery: 'webhook-delivery',
  routineFiring: 'routine-firing',
  erasure: 'erasure',
} as const;

/** One assistant reply to run. The job id is the reply's message id, so enqueueing twice is harmless. */
export interface AgentRunJob {
  messageId: string;
  threadId: string;
  requestId?: string;
}

/**
 * One try at one webhook delivery (a row of webhook_deliveries, the source of truth). `attempt` is the try it
 * stands for, so a job queued twice for the same try delivers once. The job id is `<delivery id>-<attempt>`.
 */
export interface WebhookDeliveryJob {
  deliveryId: string;
  attempt: number;
}

/** One firing of a routine, made by its BullMQ job scheduler (or at once by a worker catching up a missed one). */
export interface RoutineFiringJob {
  routineId: string;
  /** The slot of a missed firing (ISO); a scheduler's job carries its slot in the job's options instead. */
  slot?: string;
}

/** One erasure of an end user (a row of erasures, the source of truth). The job id is the erasure's id. */
export interface EraseUserJob {
  erasureId: string;
}
