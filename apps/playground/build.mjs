// Bundles the playground for the browser at build time (no CDN): <dist>/playground/{index.html,app.js,favicon.svg},
// the AI SDK's client code (DefaultChatTransport, readUIMessageStream) included.
// `node apps/playground/build.mjs [dist dir]` (npm run build passes PARLEY_DIST).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { argv } from 'node:process';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(here, '..', '..', argv[2] ?? 'dist', 'playground');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, 'src', 'main.ts')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2022',
  outfile: join(out, 'app.js'),
  logLevel: 'warning',
});
for (const file of ['index.html', 'favicon.svg']) copyFileSync(join(here, 'src', file), join(out, file));
