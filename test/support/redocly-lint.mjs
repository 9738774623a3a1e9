// Lints the OpenAPI document given on stdin with Redocly's recommended rules; prints the problems as JSON.
// A separate process: @redocly/openapi-core is an ES module, which jest's CommonJS runtime cannot load.
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { createConfig, lintFromString } from '@redocly/openapi-core';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const config = await createConfig({ extends: ['recommended'] });
const problems = await lintFromString({
  source: Buffer.concat(chunks).toString('utf8'),
  absoluteRef: 'openapi.json',
  config,
});
process.stdout.write(
  JSON.stringify(
    problems.map((problem) => ({
      rule: problem.ruleId,
      severity: problem.severity,
      message: problem.message,
      at: problem.location.map((location) => location.pointer),
    })),
  ),
);
