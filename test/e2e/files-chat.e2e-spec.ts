import { useDeployment } from '../support/deployment';
import { api } from '../support/http';

interface Permission {
  url: string;
  fields: Record<string, string>;
}

/** Files attached to messages (CONTRACTS §8): the whole upload as a client does it, then the chat calls. */
describe('files on messages', () => {
  const deployment = useDeployment({ storageDir: true, workers: 1, agent: true });
  let client: ReturnType<typeof api>;

  async function permission(userId: string): Promise<Permission> {
    const response = await client.get<Permission>(
      `/chat/files/upload?filename=brief.md&mimetype=text/markdown&user_id=${userId}`,
    );
    expect(response.status).toBe(200);
    return response.body;
  }

  async function uploaded(userId: string, body: Buffer): Promise<string> {
    const granted = await permission(userId);
    const form = new FormData();
    for (const [name, value] of Object.entries(granted.fields)) form.append(name, value);
    form.append('file', new Blob([body]), 'brief.md');
    expect((await fetch(granted.url, { method: 'POST', body: form })).status).toBe(204);
    return granted.fields['x-amz-meta-file-id'];
  }

  const start = (userId: string, fileIds: string[]) =>
    client.post('/chat', {
      message: { content: 'Read the brief', file_ids: fileIds },
      options: { agent_id: deployment.agentId, user_id: userId },
    });

  beforeAll(() => {
    client = deployment.client();
  });

  it('attaches an uploaded file: ConversationFile in the message, its url answers the same bytes', async () => {
    const body = Buffer.from('# Brief\nShip the upload feature.\n');
    const fileId = await uploaded('alice', body);
    const started = await start('alice', [fileId]);
    expect(started.status).toBe(200);
    const [question, reply] = started.body.messages;
    expect(question.files).toEqual([
      {
        id: fileId,
        name: 'brief.md',
        size: body.length,
        mimetype: 'text/markdown',
        origin: 'user',
        share_links: [],
        url: expect.any(String),
      },
    ]);
    expect(reply.files).toEqual([]);
    const download = await fetch(question.files[0].url);
    expect(Buffer.from(await download.arrayBuffer()).equals(body)).toBe(true);

    const thread = await client.get(`/chat/${started.body.id}?user_id=alice`);
    expect(thread.body.messages[0].files.map((file: { id: string }) => file.id)).toEqual([fileId]);
    // The user message's stream is one JSONL line (parsed as one document), carrying the same files.
    const line = await client.get(`/chat/messages/${question.id}/stream?user_id=alice`);
    expect(line.body.type).toBe('message.completed');
    expect(line.body.message.files.map((file: { id: string }) => file.id)).toEqual([fileId]);
  });

  it("answers 422 at the index of an unknown, not uploaded or other user's file", async () => {
    const good = await uploaded('alice', Buffer.from('ok'));
    const pending = (await permission('alice')).fields['x-amz-meta-file-id'];
    const bobs = await uploaded('bob', Buffer.from('bob'));
    const response = await start('alice', [good, '0190a0b0-0000-7000-8000-000000000000', pending, bobs]);
    expect(response.status).toBe(422);
    expect(response.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ['body', 'message', 'file_ids', 1],
      ['body', 'message', 'file_ids', 2],
      ['body', 'message', 'file_ids', 3],
    ]);
    const threads = await client.get('/chat?user_id=alice');
    expect(threads.body).toHaveLength(1);
  });

  it('checks follow-up files against the thread owner, even when the call names no user', async () => {
    const started = await start('alice', []);
    const bobs = await uploaded('bob', Buffer.from('bob'));
    const refused = await client.post(`/chat/${started.body.id}`, {
      message: { content: 'and this', file_ids: [bobs] },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'message', 'file_ids', 0]);
    const mine = await uploaded('alice', Buffer.from('mine'));
    const accepted = await client.post(`/chat/${started.body.id}`, {
      message: { content: 'and this', file_ids: [mine] },
    });
    expect(accepted.status).toBe(200);
    const thread = await client.get(`/chat/${started.body.id}`);
    expect(thread.body.messages[2].files.map((file: { id: string }) => file.id)).toEqual([mine]);
  });

  it('gives the model the text of an attached file: the builtin model reads it back', async () => {
    const fileId = await uploaded('carol', Buffer.from('# Brief\nShip the upload feature by Friday.\n'));
    const started = await start('carol', [fileId]);
    const threadId = started.body.id;
    const deadline = Date.now() + 30000;
    let reply = started.body.messages[1];
    while (reply.live) {
      if (Date.now() > deadline) throw new Error('reply still live');
      await new Promise((resolve) => setTimeout(resolve, 100));
      reply = (await client.get(`/chat/${threadId}?user_id=carol`)).body.messages[1];
    }
    expect(reply.status).toBe('success');
    expect(reply.content).toContain('You said: Read the brief');
    expect(reply.content).toContain('Ship the upload feature by Friday.');
    expect(reply.content).toContain('Attached file "brief.md" (text/markdown');
  });
});
