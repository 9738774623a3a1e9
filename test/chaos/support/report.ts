import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ChaosCounts } from './conversations';

export interface ChaosReport {
  fault: string;
  load: string;
  counts: ChaosCounts;
  /** Errors that are the right answer (e.g. 503 during an outage), said in words. */
  expectedErrors?: string;
  timings?: Record<string, number>;
}

/**
 * Prints one test's counts and appends them as a JSON line to CHAOS_REPORT (default
 * `bench/results/chaos-last-run.jsonl`), from which `bench/results/chaos.md` is written.
 */
export function report(name: string, result: ChaosReport): void {
  const line = JSON.stringify({ name, at: new Date().toISOString(), ...result });
  process.stdout.write(`chaos ${line}\n`);
  const file =
    process.env.CHAOS_REPORT ?? join(__dirname, '..', '..', '..', 'bench', 'results', 'chaos-last-run.jsonl');
  mkdirSync(join(file, '..'), { recursive: true });
  appendFileSync(file, `${line}\n`);
}
