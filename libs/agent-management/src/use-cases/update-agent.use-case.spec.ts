import { randomBytes } from 'node:crypto';
import { Settings } from '@app/config';
import { InvalidInputError, NotFoundError, UpdateAgentDto } from '@app/contracts';
import { CredentialCipher } from '@app/persistence';
import { McpServers } from '../mcp-servers';
import { ACTOR, MemoryAgents, ORG } from '../testing/memory-agents';
import { UpdateAgent } from './update-agent.use-case';

async function world() {
  const store = new MemoryAgents();
  const agent = await store.create({
    name: 'Helper',
    instructions: 'Be brief.',
    model: 'openai:gpt-4o-mini',
    temperature: 0.2,
    max_output_tokens: 500,
    token_budget: 1000,
  });
  await store.catalogueRepository.register({
    name: 'search',
    command: 'search-server',
    args: [],
    envAllow: ['SEARCH_TOKEN'],
  });
  const mcpServers = new McpServers(
    new CredentialCipher(randomBytes(32).toString('base64')),
    store.catalogueRepository,
    { mcpAllowPrivate: false } as Settings,
  );
  const update = new UpdateAgent(store.db, store.agentRepository, store.versionRepository, mcpServers);
  return {
    store,
    agentId: agent.id,
    execute: (input: UpdateAgentDto, id = agent.id) => update.execute(ACTOR, ORG, id, input),
  };
}

describe('UpdateAgent', () => {
  it('changes the fields sent, keeps the others, and stores the next version with an audit entry naming them', async () => {
    const { store, agentId, execute } = await world();

    const response = await execute({ name: 'Concierge', token_budget: null });

    expect(response).toMatchObject({
      name: 'Concierge',
      token_budget: null,
      instructions: 'Be brief.',
      model: 'openai:gpt-4o-mini',
      temperature: 0.2,
      max_output_tokens: 500,
    });
    expect(store.agent(agentId)).toMatchObject({
      name: 'Concierge',
      tokenBudget: null,
      instructions: 'Be brief.',
    });
    expect(store.versionNumbers(agentId)).toEqual([1, 2]);
    expect(store.audits).toEqual([
      {
        orgId: ORG,
        action: 'agent.updated',
        target: `agent ${agentId}`,
        details: { fields: ['name', 'token_budget'], version: 2 },
      },
    ]);
  });

  it('clears one model option with null and keeps the other', async () => {
    const { store, agentId, execute } = await world();

    // A request's JSON null: IsOptional lets it through, though the DTO types the field as a number.
    const response = await execute({ temperature: null } as unknown as UpdateAgentDto);

    expect(response).toMatchObject({ temperature: null, max_output_tokens: 500 });
    expect(store.agent(agentId)!.modelOptions).toEqual({ maxOutputTokens: 500 });
  });

  it('stores no version and no audit entry for a request that changes nothing', async () => {
    const { store, agentId, execute } = await world();

    const response = await execute({});

    expect(response.name).toBe('Helper');
    expect(store.versionNumbers(agentId)).toEqual([1]);
    expect(store.audits).toEqual([]);
  });

  it.each(['name', 'instructions', 'model', 'mcp'] as const)(
    'refuses null for %s, which cannot be cleared, and changes nothing',
    async (field) => {
      const { store, agentId, execute } = await world();

      const error: unknown = await execute({ description: 'new', [field]: null }).catch((caught) => caught);

      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).issues).toEqual([
        { loc: ['body', field], msg: 'Input should not be null', type: 'value_error', input: null },
      ]);
      expect(store.agent(agentId)!.description).toBe('');
      expect(store.versionNumbers(agentId)).toEqual([1]);
    },
  );

  it('seals the secrets of `mcp` and keeps them out of the response and the audit entry', async () => {
    const { store, agentId, execute } = await world();

    const response = await execute({
      mcp: [{ name: 'docs', server: 'search', env: { SEARCH_TOKEN: 's3cret' } }],
    });

    expect(store.agent(agentId)!.mcpServers).toEqual([
      { name: 'docs', server: 'search', envNames: ['SEARCH_TOKEN'], sealed: expect.any(String) },
    ]);
    expect(JSON.stringify(response)).not.toContain('s3cret');
    expect(JSON.stringify(store.audits)).not.toContain('s3cret');
    expect(store.audits[0].details).toEqual({ fields: ['mcp'], version: 2 });
  });

  it('answers 404 for an archived agent and for one of another organization, storing nothing', async () => {
    const { store, agentId, execute } = await world();
    const foreign = await store.create({ name: 'Foreign' }, 'org-2');
    await store.agentRepository.archive(ORG, agentId);

    await expect(execute({ name: 'x' }, foreign.id)).rejects.toThrow(NotFoundError);
    await expect(execute({ name: 'x' })).rejects.toThrow(NotFoundError);
    expect(store.agent(foreign.id)!.name).toBe('Foreign');
    expect(store.agent(agentId)!.name).toBe('Helper');
    expect(store.audits).toEqual([]);
  });
});
