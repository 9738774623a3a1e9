/**
 * Preloaded into a gateway or worker by bench/request-path.ts (`NODE_OPTIONS=--require …`): counts which
 * functions run, and on each SIGUSR2 writes the files of this checkout whose functions ran since the signal before
 * to PATH_COVERAGE_DIR/<pid>-<n>.json (V8's precise coverage, whose counters each take resets).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const out = process.env.PATH_COVERAGE_DIR!;
const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

interface ScriptCoverage {
  url: string;
  functions: { functionName: string; ranges: { count: number }[] }[];
}

let taken = 0;
process.on('SIGUSR2', () => {
  session.post('Profiler.takePreciseCoverage', (error, coverage) => {
    if (error) throw error;
    const ran = (coverage.result as ScriptCoverage[])
      .filter((script) => script.url.startsWith('file://') && !script.url.includes('/node_modules/'))
      .map((script) => ({
        url: script.url,
        functions: script.functions
          .filter((fn) => fn.ranges[0].count > 0)
          .map((fn) => fn.functionName || '(anonymous)'),
      }))
      .filter((script) => script.functions.length > 0);
    writeFileSync(join(out, `${process.pid}-${taken++}.json`), JSON.stringify(ran));
  });
});
