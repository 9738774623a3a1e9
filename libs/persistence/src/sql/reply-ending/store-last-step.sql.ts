import { RUN_STEP_COLUMNS } from '../run-step-row';
import { ReplyEndingPlaceholders } from './reply-ending.parameters';

/**
 * Stores the run's last step with its end, when it has one not stored yet (its parameters all null otherwise):
 * the step costs no commit of its own. Once, like saveStep: a step stored already stays. A row per step stored.
 */
export const storeLastStepSql = (p: ReplyEndingPlaceholders): string =>
  `INSERT INTO run_steps (${RUN_STEP_COLUMNS.map((column) => column.name).join(', ')})
     SELECT ${RUN_STEP_COLUMNS.map((column) => p.of(`lastStep.${column.name}`)).join(', ')}
     WHERE ${p.of('lastStep.step')} IS NOT NULL
     ON CONFLICT (message_id, step) DO NOTHING RETURNING 1`;
