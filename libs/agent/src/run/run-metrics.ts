import { Injectable } from '@nestjs/common';
import { counter, histogram } from '@app/observability';

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * What the agent runtime records: runs by outcome, step and model-call durations, time spent queued. Each is
 * created once per process (several apps may share a test process).
 */
@Injectable()
export class RunMetrics {
  readonly runs = counter(
    'agent_runs_total',
    'Agent runs ended, by outcome (success, error, cancelled, budget_exhausted)',
    ['outcome'],
  );
  readonly stepDuration = histogram(
    'agent_step_duration_seconds',
    'Duration of one step: model call, tool calls and checkpoints',
    [],
    SECONDS,
  );
  readonly stepOverhead = histogram(
    'agent_step_overhead_seconds',
    'Time of a step spent outside the model call and the tools (checkpoints, events, bookkeeping)',
    [],
    [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1],
  );
  readonly modelCallDuration = histogram(
    'agent_model_call_duration_seconds',
    'Duration of one streamed model call, by model',
    ['model'],
    SECONDS,
  );
  readonly queueWait = histogram(
    'agent_run_queue_wait_seconds',
    'Time from enqueueing a reply to its run starting',
    [],
    SECONDS,
  );
}
