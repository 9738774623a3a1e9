import { useDeployment } from '../support/deployment';
import { api } from '../support/http';

interface ToolResultEvent {
  type: string;
  name: string;
  output: any;
  is_error: boolean;
}

const skillMd = (name: string, allowedTools: string, body: string) =>
  `---\nname: ${name}\ndescription: ${name} for tests\nallowed-tools: ${allowedTools}\n---\n${body}\n`;

describe('skills in agent runs', () => {
  const deployment = useDeployment({ workers: 1, agent: true });
  let client: ReturnType<typeof api>;

  beforeAll(async () => {
    client = deployment.client();
    await client.post('/skills?user_id=alice', { content: skillMd('ship-it', 'clock', 'Ship carefully.') });
    const off = await client.post('/skills?user_id=alice', {
      content: skillMd('switched-off', 'clock', 'Never shown.'),
    });
    await client.put(`/skills/${off.body.id}?user_id=alice`, { active: false, scope: 'organization' });
    await client.post('/skills?user_id=bob', { content: skillMd('bob-secret', 'clock', 'Bob only.') });
  });

  /** Posts a message as alice and waits for the reply to finish; answers its tool results in order. */
  async function toolResultsOf(content: string): Promise<ToolResultEvent[]> {
    const started = await client.post('/chat', {
      message: { content },
      options: { agent_id: deployment.agentId, user_id: 'alice' },
    });
    expect(started.status).toBe(200);
    const threadId = started.body.id;
    const deadline = Date.now() + 30000;
    for (;;) {
      const thread = await client.get(`/chat/${threadId}?user_id=alice`);
      const reply = thread.body.messages[1];
      if (!reply.live) {
        expect(reply.status).toBe('success');
        return reply.events.filter((event: ToolResultEvent) => event.type === 'tool.result');
      }
      if (Date.now() > deadline) throw new Error(`reply still live: ${JSON.stringify(reply)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('gives the model an active skill’s instructions through skill_read', async () => {
    const [read] = await toolResultsOf('/tool skill_read {"name": "ship-it"}');
    expect(read).toMatchObject({
      name: 'skill_read',
      is_error: false,
      output: { name: 'ship-it', instructions: 'Ship carefully.', allowed_tools: ['clock'] },
    });
  });

  it('does not let a run read an inactive skill or another end user’s private one', async () => {
    const [inactive] = await toolResultsOf('/tool skill_read {"name": "switched-off"}');
    expect(inactive).toMatchObject({ is_error: true, output: 'skill "switched-off" is not available' });
    const [foreign] = await toolResultsOf('/tool skill_read {"name": "bob-secret"}');
    expect(foreign).toMatchObject({ is_error: true, output: 'skill "bob-secret" is not available' });
  });

  it('limits the tools to the skill’s allowed_tools while it is in use', async () => {
    const [beforeSkill] = await toolResultsOf('/tool web {"url": "http://127.0.0.1:9/"}');
    expect(beforeSkill.output).not.toBe('tool web is not available');
    const [read, web, clock] = await toolResultsOf(
      '/tool skill_read {"name": "ship-it"}\n/tool web {"url": "http://127.0.0.1:9/"}\n/tool clock {}',
    );
    expect(read.is_error).toBe(false);
    expect(web).toMatchObject({ name: 'web', is_error: true, output: 'tool web is not available' });
    expect(clock).toMatchObject({ name: 'clock', is_error: false });
  });
});
