import { setFlagsFromString } from 'node:v8';
import { loadSettingsOrExit } from '@app/config';

/**
 * Sets V8's heap growing factor to 1 + HEAP_GROWTH_PERCENT / 100 (0, the default, keeps V8's adaptive factor, up
 * to 4). Each main.ts calls it before its other imports: V8 sizes the heap at every full collection, the first
 * ones while modules load, so a limit set later would first let the heap swell to what the start-up sized. It
 * trades CPU for memory: with 500 live streams gateway and worker peaked at ~565 MiB under 0 and ~395 MiB under
 * 20, for ~20 % more of their CPU per conversation (bench/results/paced.md).
 */
export function limitHeapGrowth(): void {
  const percent = loadSettingsOrExit().heapGrowthPercent;
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
