import { Injectable } from '@nestjs/common';
import { Counter, Histogram, register } from 'prom-client';

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** A metric of prom-client's default registry, created once per process (several apps may share a test process). */
function once<T>(name: string, create: () => T): T {
  return (register.getSingleMetric(name) as T | undefined) ?? create();
}

/** What the agent runtime records: runs by outcome, step and model-call durations, time spent queued. */
@Injectable()
export class RunMetrics {
  readonly runs = once(
    'agent_runs_total',
    () =>
      new Counter({
        name: 'agent_runs_total',
        help: 'Agent runs ended, by outcome (success, error, cancelled, budget_exhausted)',
        labelNames: ['outcome'],
      }),
  );
  readonly stepDuration = once(
    'agent_step_duration_seconds',
    () =>
      new Histogram({
        name: 'agent_step_duration_seconds',
        help: 'Duration of one step: model call, tool calls and checkpoints',
        buckets: SECONDS,
      }),
  );
  readonly stepOverhead = once(
    'agent_step_overhead_seconds',
    () =>
      new Histogram({
        name: 'agent_step_overhead_seconds',
        help: 'Time of a step spent outside the model call and the tools (checkpoints, events, bookkeeping)',
        buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1],
      }),
  );
  readonly modelCallDuration = once(
    'agent_model_call_duration_seconds',
    () =>
      new Histogram({
        name: 'agent_model_call_duration_seconds',
        help: 'Duration of one streamed model call, by model',
        labelNames: ['model'],
        buckets: SECONDS,
      }),
  );
  readonly queueWait = once(
    'agent_run_queue_wait_seconds',
    () =>
      new Histogram({
        name: 'agent_run_queue_wait_seconds',
        help: 'Time from enqueueing a reply to its run starting',
        buckets: SECONDS,
      }),
  );
}
