import { Injectable } from '@nestjs/common';
import { counter } from '@app/observability';

/**
 * Routine firings by outcome: `fired` (a thread started), `duplicate` (that slot had already fired: a retried
 * or doubled job), `stopped` (the routine can no longer fire and was deactivated), `skipped` (inactive or gone).
 */
@Injectable()
export class RoutineMetrics {
  readonly firings = counter(
    'routine_firings_total',
    'Routine firings, by outcome (fired, duplicate, stopped, skipped)',
    ['outcome'],
  );
}
