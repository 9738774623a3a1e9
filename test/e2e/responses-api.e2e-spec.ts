import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { runEventKeys } from '@app/run-events';
import { useDeployment } from '../support/deployment';
import { queryDatabase } from '../support/test-environment';

/**
 * Issue 32, the Responses API (CONTRACTS §18), driven by the official `openai` package pointed at /openai/v1 of a
 * real gateway and worker: blocking, streamed, background with retrieve and resumed streams (also an hour after
 * the reply, with Redis no longer holding its events), cancel, previous_response_id, a tool call, and errors as
 * the package's own error classes.
 */
const deployment = useDeployment({
  workers: 1,
  workerEnv: { WORKER_HEALTH_PORT: '0' },
  agent: true,
  timeoutMs: 120000,
});
let client: OpenAI;

beforeAll(() => {
  client = new OpenAI({ apiKey: deployment.org.key, baseURL: `${deployment.url}/openai/v1`, maxRetries: 0 });
});

const ask = (input: string) => ({ model: deployment.agentId, input, user: 'alice' });

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const deltasOf = (events: ResponseStreamEvent[]) =>
  events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []));

describe('Responses API with the openai package', () => {
  it('answers a blocking create with the completed Response', async () => {
    const response = await client.responses.create(ask('/say hello from parley'));
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: deployment.agentId,
      output_text: 'hello from parley',
      previous_response_id: null,
      user: 'alice',
      error: null,
    });
    expect(response.id).toMatch(/^resp_[0-9a-f-]{36}$/);
    expect(response.output).toEqual([
      expect.objectContaining({
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'hello from parley', annotations: [] }],
      }),
    ]);
    // What the reply's row holds, split as the Responses API reports it.
    expect(response.usage!.input_tokens).toBeGreaterThan(0);
    expect(response.usage!.output_tokens).toBeGreaterThan(0);
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
    const stored = await client.responses.retrieve(response.id);
    expect(stored.usage).toEqual(response.usage);
  });

  it('streams every delta, with a gap-free sequence_number, from response.created to response.completed', async () => {
    const words = Array.from({ length: 12 }, (_, index) => `w${index}`);
    const events = await collect(
      await client.responses.create({ ...ask(`/say ${words.join(' ')}`), stream: true }),
    );
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.slice(0, 4).map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(events.slice(-4).map((event) => event.type)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    // The words as the stream carried them: one a line, or those of one hold window joined (CONTRACTS §5).
    expect(deltasOf(events).join('')).toBe(words.join(' '));
    expect(deltasOf(events).length).toBeGreaterThanOrEqual(1);
    const last = events[events.length - 1];
    expect(last.type === 'response.completed' && last.response.output_text).toBe(words.join(' '));
  });

  it('answers a background create at once, then retrieves it and resumes its stream after any sequence_number', async () => {
    const created = await client.responses.create({
      ...ask('/say one two three four five six\n/sleep 150'),
      background: true,
    });
    expect(created.status).toBe('queued');
    expect(created.output).toEqual([]);
    // Six words 150 ms apart: still live.
    expect(['queued', 'in_progress']).toContain((await client.responses.retrieve(created.id)).status);

    const full = await collect(await client.responses.retrieve(created.id, { stream: true }));
    expect(full[full.length - 1].type).toBe('response.completed');
    const resumed = await collect(
      await client.responses.retrieve(created.id, { stream: true, starting_after: 5 }),
    );
    expect(resumed).toEqual(full.slice(6));

    const retrieved = await client.responses.retrieve(created.id);
    expect(retrieved).toMatchObject({
      id: created.id,
      status: 'completed',
      output_text: 'one two three four five six',
    });
    expect(retrieved).toEqual((full[full.length - 1] as { response: unknown }).response);
  });

  it('resumes a stream an hour after the reply, when Redis no longer holds its events', async () => {
    const response = await client.responses.create(ask('/say late but complete'));
    const first = await collect(await client.responses.retrieve(response.id, { stream: true }));
    const replyId = response.id.slice('resp_'.length);
    await queryDatabase(
      deployment.environment.databaseUrl,
      `UPDATE messages SET created_at = created_at - interval '1 hour', completed_at = completed_at - interval '1 hour'
       WHERE id = $1`,
      [replyId],
    );
    const redis = new Redis(deployment.environment.env.REDIS_URL!);
    try {
      const { stream } = runEventKeys(deployment.environment.redisPrefix, replyId);
      expect(await redis.del(stream)).toBe(1);
    } finally {
      redis.disconnect();
    }
    const later = await collect(
      await client.responses.retrieve(response.id, { stream: true, starting_after: 2 }),
    );
    // Same events, but the creation time that was moved back.
    const createdAt = response.created_at - 3600;
    const withTime = (events: ResponseStreamEvent[]) =>
      JSON.parse(
        JSON.stringify(events).replaceAll(`"created_at":${response.created_at}`, `"created_at":${createdAt}`),
      );
    expect(later).toEqual(withTime(first.slice(3)));
    expect(deltasOf(later).join('')).toBe(
      deltasOf(first)
        .join('')
        .slice(deltasOf(first.slice(0, 3)).join('').length),
    );
  });

  it('cancels a live response', async () => {
    const words = Array.from({ length: 40 }, (_, index) => `w${index}`).join(' ');
    const created = await client.responses.create({ ...ask(`/say ${words}\n/sleep 200`), background: true });
    const stream = await client.responses.retrieve(created.id, { stream: true });
    // Cancelled once it runs: its first delta is out.
    for await (const event of stream) if (event.type === 'response.output_text.delta') break;
    const cancelled = await client.responses.cancel(created.id);
    expect(cancelled).toMatchObject({ id: created.id, status: 'cancelled', error: { code: 'cancelled' } });
    expect(cancelled.output_text.length).toBeLessThan(words.length);
    const events = await collect(await client.responses.retrieve(created.id, { stream: true }));
    expect(events[events.length - 1]).toMatchObject({
      type: 'response.failed',
      response: { status: 'cancelled' },
    });
  });

  it('continues the thread of previous_response_id', async () => {
    const first = await client.responses.create(ask('/say first'));
    const second = await client.responses.create({
      ...ask('/say second'),
      previous_response_id: first.id,
      metadata: { ticket: 'T-42' },
    });
    expect(second).toMatchObject({
      status: 'completed',
      output_text: 'second',
      previous_response_id: first.id,
      metadata: { ticket: 'T-42' },
    });
    expect(await client.responses.retrieve(second.id)).toMatchObject({
      previous_response_id: first.id,
      metadata: { ticket: 'T-42' },
    });
    expect(first.metadata).toEqual({});
    const rows = await queryDatabase<{ thread_id: string; position: number }>(
      deployment.environment.databaseUrl,
      'SELECT thread_id, position FROM messages WHERE id = ANY($1::uuid[]) ORDER BY position',
      [[first.id, second.id].map((id) => id.slice('resp_'.length))],
    );
    expect(rows).toEqual([
      { thread_id: rows[0].thread_id, position: 1 },
      { thread_id: rows[0].thread_id, position: 3 },
    ]);
  });

  it('shows a tool call as a function_call item before the text', async () => {
    const response = await client.responses.create(ask('/tool clock {}'));
    expect(response.status).toBe('completed');
    const [call, message] = response.output;
    expect(call).toMatchObject({ type: 'function_call', name: 'clock', status: 'completed' });
    expect(call.type === 'function_call' && JSON.parse(call.arguments)).toEqual({});
    expect(message).toMatchObject({ type: 'message', status: 'completed' });
    expect(response.output_text.length).toBeGreaterThan(0);
  });

  it('ends a failed reply as failed, with why', async () => {
    const events = await collect(await client.responses.create({ ...ask('/fail'), stream: true }));
    const last = events[events.length - 1];
    expect(last.type).toBe('response.failed');
    expect(last.type === 'response.failed' && last.response.status).toBe('failed');
    expect(last.type === 'response.failed' && last.response.error?.message).toBeTruthy();
  });

  it("answers errors as the package's own classes, in OpenAI's body", async () => {
    const stranger = new OpenAI({
      apiKey: 'sk-svc-not-a-key',
      baseURL: `${deployment.url}/openai/v1`,
      maxRetries: 0,
    });
    await expect(stranger.responses.create(ask('hello'))).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const missing = client.responses.retrieve(`resp_${randomUUID()}`);
    await expect(missing).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client.responses.create({ ...ask('hi'), model: randomUUID() })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    const noUser = await client.responses
      .create({ model: deployment.agentId, input: 'hi' })
      .catch((error: unknown) => error);
    expect(noUser).toBeInstanceOf(OpenAI.BadRequestError);
    expect(noUser).toMatchObject({ status: 400, type: 'invalid_request_error', param: 'user' });
  });

  it("answers 404 for another organization's response", async () => {
    const mine = await client.responses.create(ask('/say mine'));
    const other = await deployment.createOrg();
    const theirs = new OpenAI({ apiKey: other.key, baseURL: `${deployment.url}/openai/v1`, maxRetries: 0 });
    await expect(theirs.responses.retrieve(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(theirs.responses.cancel(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(
      theirs.responses.create({
        model: deployment.agentId,
        input: 'hi',
        user: 'alice',
        previous_response_id: mine.id,
      }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("runs the guide's snippet as written, against this gateway", async () => {
    const guide = readFileSync(join(__dirname, '..', '..', 'docs', 'guide.md'), 'utf8');
    const section = guide.slice(guide.indexOf('### The Responses API'));
    const snippet = /```js\n([\s\S]*?)^```$/m
      .exec(section)![1]
      .replaceAll('http://127.0.0.1:3000', deployment.url);
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', snippet], {
      cwd: join(__dirname, '..', '..'),
      env: { PATH: process.env.PATH, PARLEY_KEY: deployment.org.key, PARLEY_AGENT: deployment.agentId },
    });
    const lines = stdout.trim().split('\n');
    expect(lines[lines.length - 1]).toMatch(/^\d+ response\.completed$/);
    expect(lines).toContain('4 response.output_text.delta');
  });
});
