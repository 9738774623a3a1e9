/**
 * Data sources, two measures:
 *  1. sync throughput: BENCH_DOCS small text files (default 10,000) in one folder of the fake Google Drive,
 *     synced by ONE worker process from POST /dc/sources to `status: synced` (documents/s);
 *  2. search latency of `company_documents` (the tool's own execute, in process, on the same database) over
 *     BENCH_PASSAGES passages (default 100,000, written with builtin embeddings), p50/p99 of BENCH_QUERIES
 *     queries of three words.
 * Needs PostgreSQL and Redis (DATABASE_URL's server, REDIS_URL) and a build:
 *
 *   PARLEY_DIST=/tmp/dist-bench npm run build && NODE_PATH=$PWD/node_modules node /tmp/dist-bench/bench/source-sync.js
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { ToolCallContext } from '@app/agent';
import { loadSettings } from '@app/config';
import { DocumentSearch, Embedder } from '@app/knowledge';
import { CompanyDocumentsToolSource } from '@app/knowledge/tools';
import { dataSourceOptions, DocumentRepository, PassageSearchRepository } from '@app/persistence';
import { FakeGoogleDrive } from '../test/support/fake-google-drive';
import {
  benchAppEnv,
  benchNumbers,
  dropBenchStores,
  freePort,
  migrateBenchDatabase,
  percentile,
  sleep,
} from './support';

const run = promisify(execFile);
const DIST = join(__dirname, '..');
const { DOCS, PASSAGES, QUERIES } = benchNumbers({ DOCS: 10000, PASSAGES: 100000, QUERIES: 200 });
/** A response body as the bench reads it: ids, pids and counters. */
type JsonObject = Record<string, string | number | null>;

/** A deterministic vocabulary of pseudo-words, so text and queries share words with realistic selectivity. */
let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ra',
  'tu',
  'vi',
  'so',
  'pe',
  'da',
  'gor',
  'lin',
  'mar',
  'ten',
  'bus',
];
const VOCABULARY = Array.from({ length: 3000 }, () =>
  Array.from(
    { length: 2 + Math.floor(random() * 2) },
    () => SYLLABLES[Math.floor(random() * SYLLABLES.length)],
  ).join(''),
);
const word = () => VOCABULARY[Math.floor(random() * VOCABULARY.length)];
const sentence = (words: number) => Array.from({ length: words }, word).join(' ') + '.';

async function main(): Promise<void> {
  const name = `parley_bench_sources_${randomBytes(3).toString('hex')}`;
  const drive = await new FakeGoogleDrive().start();
  drive.pageSize = 1000;
  drive.oauth.grant('bench-token');
  for (let i = 0; i < DOCS; i++)
    drive.addFile('bench', `doc-${i}.txt`, 'text/plain', `${sentence(12)} ${sentence(12)}`);
  const port = await freePort();
  const { databaseUrl, env } = benchAppEnv(name, {
    PORT: String(port),
    STORAGE_PORT: String(await freePort()),
    HOST: '127.0.0.1',
    WORKER_HEALTH_PORT: '0',
    GOOGLE_DRIVE_API_URL: drive.url,
    GOOGLE_TOKEN_URL: drive.tokenUrl,
    SOURCE_SYNC_INTERVAL_SECONDS: '0',
  });
  const processes: ChildProcess[] = [];
  let db: DataSource | undefined;
  try {
    await migrateBenchDatabase(env);
    const { stdout } = await run(
      process.execPath,
      [join(DIST, 'apps/admin/src/main.js'), 'keys:create', '--org', 'bench'],
      { env },
    );
    const key = JSON.parse(stdout) as { key: string; org_id: string };
    for (const app of ['gateway', 'worker']) {
      processes.push(
        spawn(process.execPath, [join(DIST, `apps/${app}/src/main.js`)], { env, stdio: 'inherit' }),
      );
    }
    const base = `http://127.0.0.1:${port}`;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { 'x-service-token': key.key, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await response.json()) as JsonObject;
    };
    for (;;) {
      try {
        if ((await fetch(`${base}/health/ready`)).ok) break;
      } catch {
        // not listening yet
      }
      await sleep(200);
    }
    await sleep(2000); // the worker's consumer starts after the gateway is ready

    const connection = await call('POST', '/dc/connections?user_id=bench', {
      name: 'bench',
      kind: 'googledrive',
      credentials: { access_token: 'bench-token' },
    });
    const started = performance.now();
    const source = await call('POST', '/dc/sources?user_id=bench', {
      connection_id: connection.id,
      store: 'googledrive',
      config: { folder_id: 'bench' },
      scope: 'organization',
    });
    let synced: JsonObject;
    for (;;) {
      synced = await call('GET', `/dc/sources/${source.pid}`);
      if (synced.status === 'synced' || synced.status === 'error') break;
      await sleep(250);
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      JSON.stringify({
        measure: 'sync',
        documents: DOCS,
        status: synced.status,
        documents_synced: synced.documents_synced,
        documents_embedded: synced.documents_embedded,
        seconds: Number(seconds.toFixed(2)),
        documents_per_second: Number((DOCS / seconds).toFixed(1)),
      }),
    );

    // Search: pad the same organization with passages up to BENCH_PASSAGES, then query through the tool.
    const settings = loadSettings({ DATABASE_URL: databaseUrl });
    db = await new DataSource(dataSourceOptions(settings, 4)).initialize();
    const embedder = new Embedder(settings);
    const documents = new DocumentRepository(db);
    const [{ count: existing }] = (await db.query(`SELECT count(*)::int AS count FROM passages`)) as {
      count: number;
    }[];
    const perDocument = 100;
    const padStarted = performance.now();
    for (let written = existing, n = 0; written < PASSAGES; written += perDocument, n++) {
      await documents.upsertListed(
        { id: Number(source.id), orgId: key.org_id },
        [{ externalId: `pad-${n}`, name: `pad-${n}.txt`, mimeType: 'text/plain', size: 0, version: '1' }],
        1,
      );
      const [document] = await documents.toFetch(Number(source.id), 1);
      const texts = Array.from(
        { length: perDocument },
        () => `${sentence(40)} ${sentence(40)} ${sentence(40)}`,
      );
      const vectors = await embedder.embed(texts);
      await documents.saveOutcome(document, 'english', {
        status: 'indexed',
        error: null,
        size: 0,
        embeddedSize: 0,
        embedded: true,
        passages: texts.map((text, i) => ({
          position: i,
          startOffset: 0,
          endOffset: text.length,
          text,
          embedding: vectors[i],
        })),
      });
    }
    await db.query('VACUUM ANALYZE passages');
    const [{ count: passages }] = (await db.query(`SELECT count(*)::int AS count FROM passages`)) as {
      count: number;
    }[];
    const search = new DocumentSearch(new PassageSearchRepository(db), embedder, settings);
    await search.onModuleInit();
    const tool = new CompanyDocumentsToolSource(search).tool;
    const context = {
      orgId: key.org_id,
      userId: 'bench',
      sourceIds: null,
      documentIds: null,
    } as unknown as ToolCallContext;
    for (let i = 0; i < 10; i++) await tool.execute({ query: `${word()} ${word()} ${word()}` }, context);
    const latencies: number[] = [];
    let hits = 0;
    for (let i = 0; i < QUERIES; i++) {
      const query = `${word()} ${word()} ${word()}`;
      const t = performance.now();
      const output = (await tool.execute({ query, top_k: 5 }, context)) as { passages: unknown[] };
      latencies.push(performance.now() - t);
      if (output.passages.length > 0) hits++;
    }
    latencies.sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        measure: 'company_documents',
        passages,
        padding_seconds: Number(((performance.now() - padStarted) / 1000).toFixed(1)),
        queries: QUERIES,
        queries_with_hits: hits,
        p50_ms: Number(percentile(latencies, 50).toFixed(1)),
        p99_ms: Number(percentile(latencies, 99).toFixed(1)),
        max_ms: Number(latencies[latencies.length - 1].toFixed(1)),
      }),
    );
  } finally {
    await db?.destroy();
    for (const child of processes) child.kill('SIGTERM');
    await sleep(1500);
    await drive.stop();
    await dropBenchStores(name);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
