import { setFlagsFromString } from 'node:v8';
import { loadSettingsOrExit } from '@app/config';

/**
 * Sets V8's heap growing factor to 1 + HEAP_GROWTH_PERCENT / 100 (0 keeps V8's adaptive factor, up to 4). Each
 * main.ts calls it before its other imports: V8 sizes the heap at every full collection, the first ones while
 * modules load, so a limit set later would first let the heap swell to what the start-up sized. With 500 live
 * streams a request's objects outlive the young generation and die in the old one: under the adaptive factor
 * gateway and worker reached ~545 MiB together, under 20 % ~390 MiB, for ~0.3 s more of collections in a
 * 2,000-conversation run (bench/results/paced.md).
 */
export function limitHeapGrowth(): void {
  const percent = loadSettingsOrExit().heapGrowthPercent;
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
