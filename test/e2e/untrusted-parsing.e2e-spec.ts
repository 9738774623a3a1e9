import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSZip from 'jszip';
import { createAgent, createOrg, OrgFixture } from '../factories/admin';
import { FakeSite } from '../support/fake-site';
import { api } from '../support/http';
import { postUpload } from '../support/uploads';
import { docxOf, MIME } from '../support/document-fixtures';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';
import { ofType, runReply } from './models.support';
import { until } from './stream.support';

/**
 * Untrusted content crafted to be slow to parse, on real processes: organization A's run reads it (a web page
 * of 512 KiB of unclosed `<title>`, a DOCX whose XML expands to millions of elements) while organization B asks
 * for a one-word reply on the same worker; or A uploads a SKILL.md whose YAML takes seconds to parse while B
 * calls the same gateway. The parse runs in a parsing thread, so B is not delayed.
 */
const PARSE_TIMEOUT_MS = 3000;
const GATEWAY_PARSE_TIMEOUT_MS = 1000;
let environment: TestEnvironment;
let gateway: AppProcess;
let worker: AppProcess;
let storageDir: string;
let orgA: OrgFixture;
let orgB: OrgFixture;
let agentA: string;
let agentB: string;
const site = new FakeSite((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end('<html><head><title>' + '<title>'.repeat((512 * 1024) / 7));
});
const hits = site.hits;
let base: string;

beforeAll(async () => {
  base = (await site.start()).url;
  storageDir = await mkdtemp(join(tmpdir(), 'parley-untrusted-'));
  environment = await createTestEnvironment({ STORAGE_DIR: storageDir });
  [gateway, worker] = await Promise.all([
    startGateway(environment.env, { PARSE_TIMEOUT_MS: String(GATEWAY_PARSE_TIMEOUT_MS) }),
    startWorker(environment.env, {
      WORKER_HEALTH_PORT: '0',
      WEB_TOOL_ALLOW_PRIVATE: 'true',
      PARSE_TIMEOUT_MS: String(PARSE_TIMEOUT_MS),
      // Room enough that the DOCX bomb meets the time limit first, on a fast machine too (at the default 256 MiB
      // an idle 2-core box reached the memory limit in ~2.3 s, before the 3 s this test is about).
      PARSE_THREAD_MEMORY_MB: '2048',
    }),
  ]);
  [orgA, orgB] = await Promise.all([createOrg(environment.env), createOrg(environment.env)]);
  [agentA, agentB] = await Promise.all([
    createAgent(environment.env, orgA.org).then((agent) => agent.id),
    createAgent(environment.env, orgB.org).then((agent) => agent.id),
  ]);
});

afterAll(async () => {
  await Promise.all([gateway?.stop(), worker?.stop()]);
  await site.stop();
  await environment?.dispose();
  if (storageDir) await rm(storageDir, { recursive: true, force: true });
});

/** B's one-word reply, timed from its POST to its stream's last line. */
async function timedReplyOfB(): Promise<number> {
  const started = Date.now();
  const reply = await runReply(gateway.url!, orgB.key, agentB, '/say ok');
  expect(reply.message).toMatchObject({ status: 'success', content: 'ok' });
  return Date.now() - started;
}

const liveReplies = async (org: OrgFixture) =>
  (
    await queryDatabase<{ n: number }>(
      environment.databaseUrl,
      `SELECT count(*)::int AS n FROM messages WHERE org_id = $1 AND live`,
      [org.orgId],
    )
  )[0].n;

it("reads a 512 KiB page of unclosed <title> without delaying another organization's reply", async () => {
  const pageA = runReply(
    gateway.url!,
    orgA.key,
    agentA,
    `/tool web ${JSON.stringify({ url: `${base}/titles` })}`,
  );
  await until(() => hits.length > 0, 20000);
  // Before the fix the title's regular expression held the worker's event loop for some 20 s here; a one-word reply
  // takes well under a second, and up to about one when CI runs other suites beside this one (1057 ms seen).
  expect(await timedReplyOfB()).toBeLessThan(3000);

  const [result] = ofType((await pageA).lines, 'tool.result');
  expect(result.is_error).toBe(false);
  expect(result.output.title).toMatch(/^<title><title>/);
});

it('gives up on a DOCX that expands to millions of elements at the time limit, the worker answering others meanwhile', async () => {
  const bomb = await docxBomb(1_500_000);
  const client = api(gateway.url!, orgA.key);
  const granted = (
    await client.get(`/chat/files/upload?filename=bomb.docx&mimetype=${MIME.docx}&user_id=alice`)
  ).body as { url: string; fields: Record<string, string> };
  expect((await postUpload(granted, bomb, 'bomb.docx')).status).toBe(204);

  const started = Date.now();
  const chat = await client.post('/chat', {
    message: { content: '/say read', file_ids: [granted.fields['x-amz-meta-file-id']] },
    options: { agent_id: agentA, user_id: 'alice' },
  });
  expect(chat.status).toBe(200);
  await until(async () => {
    const [row] = await queryDatabase<{ status: string }>(
      environment.databaseUrl,
      `SELECT status FROM messages WHERE id = $1`,
      [chat.body.messages[1].id],
    );
    return row.status === 'running';
  }, 20000);

  expect(await timedReplyOfB()).toBeLessThan(1000);
  // A is still being parsed: B's reply came while A's parse held a thread, not after it.
  expect(await liveReplies(orgA)).toBe(1);

  // A's reply goes on without the attachment once the parse hits PARSE_TIMEOUT_MS.
  await until(async () => (await liveReplies(orgA)) === 0, 60000);
  expect(Date.now() - started).toBeGreaterThanOrEqual(PARSE_TIMEOUT_MS);
  const thread = await client.get(`/chat/${chat.body.id}?user_id=alice`);
  expect(thread.body.messages[1]).toMatchObject({ status: 'success', content: 'read' });
});

it('refuses a SKILL.md whose YAML is slow to parse at the time limit, the gateway answering others meanwhile', async () => {
  // 16,000 keys in the 100,000 characters a SKILL.md may have: the YAML parser's duplicate-key check makes this
  // about two seconds of CPU on an idle machine, twice the limit (short keys: `k` and base 36).
  const yaml = Array.from({ length: 16000 }, (_, i) => `k${i.toString(36)}:`).join('\n');
  const upload = api(gateway.url!, orgA.key).post('/skills?user_id=alice', {
    content: `---\n${yaml}\n---\nbody`,
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const started = Date.now();
  const listed = await api(gateway.url!, orgB.key).get('/skills?user_id=bob');
  expect(listed.status).toBe(200);
  expect(Date.now() - started).toBeLessThan(1000);

  const refused = await upload;
  expect(refused.status).toBe(422);
  expect(refused.body.detail[0]).toMatchObject({
    loc: ['body', 'content'],
    type: 'value_error',
    msg: `Value error, invalid YAML frontmatter: parsing took longer than ${GATEWAY_PARSE_TIMEOUT_MS} ms`,
  });
});

/** A small DOCX (deflated) whose document.xml holds `paragraphs` one-letter paragraphs. */
it('gives up on the same DOCX at the memory limit, long before the time limit', async () => {
  // Another worker in place of the first: a small heap for parsing threads, a minute to parse.
  await worker.stop();
  worker = await startWorker(environment.env, {
    WORKER_HEALTH_PORT: '0',
    PARSE_TIMEOUT_MS: '60000',
    PARSE_THREAD_MEMORY_MB: '64',
  });
  const client = api(gateway.url!, orgA.key);
  const granted = (
    await client.get(`/chat/files/upload?filename=bomb.docx&mimetype=${MIME.docx}&user_id=alice`)
  ).body as { url: string; fields: Record<string, string> };
  expect((await postUpload(granted, await docxBomb(1_500_000), 'bomb.docx')).status).toBe(204);

  const started = Date.now();
  const chat = await client.post('/chat', {
    // No /say: the builtin model's answer echoes what it was given of the attachment.
    message: { content: 'read it', file_ids: [granted.fields['x-amz-meta-file-id']] },
    options: { agent_id: agentA, user_id: 'alice' },
  });
  expect(chat.status).toBe(200);
  await until(async () => (await liveReplies(orgA)) === 0, 60000);
  // The parse failed, far from the minute the time limit allows: the heap limit stopped it.
  expect(Date.now() - started).toBeLessThan(30000);
  const thread = await client.get(`/chat/${chat.body.id}?user_id=alice`);
  expect(thread.body.messages[1].status).toBe('success');
  expect(thread.body.messages[1].content).toContain('"bomb.docx"');
  expect(thread.body.messages[1].content).toContain('could not be read');
});

async function docxBomb(paragraphs: number): Promise<Buffer> {
  const zip = await JSZip.loadAsync(await docxOf([]));
  const body = '<w:p><w:r><w:t>a</w:t></w:r></w:p>'.repeat(paragraphs);
  zip.file(
    'word/document.xml',
    '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
      `<w:body>${body}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 1 } });
}
