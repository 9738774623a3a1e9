import { NotFoundError } from '@app/contracts';
import { ACTOR, MemoryAgents, ORG } from '../testing/memory-agents';
import { GetAgentVersion, ListAgentVersions, RestoreAgentVersion } from './agent-versions.use-case';

/** An agent whose name was changed twice after its creation: versions 1 (Helper), 2 (Guide) and 3 (Concierge). */
async function world() {
  const store = new MemoryAgents();
  const { id: agentId } = await store.create({ name: 'Helper' });
  for (const name of ['Guide', 'Concierge']) {
    await store.db.transaction(async (tx) => {
      await store.agentRepository.update(ORG, agentId, { name }, tx);
      await store.versionRepository.record(tx, { orgId: ORG }, agentId, ACTOR);
    });
  }
  return {
    store,
    agentId,
    list: new ListAgentVersions(store.agentRepository, store.versionRepository),
    get: new GetAgentVersion(store.agentRepository, store.versionRepository),
    restore: new RestoreAgentVersion(store.db, store.agentRepository, store.versionRepository),
  };
}

describe('ListAgentVersions', () => {
  it('pages through the versions newest first, a full page carrying the cursor of the next', async () => {
    const { list, agentId } = await world();

    const first = await list.execute(ORG, agentId, { limit: 2 });
    expect(first.items.map((item) => [item.version, item.config.name])).toEqual([
      [3, 'Concierge'],
      [2, 'Guide'],
    ]);
    expect(first.nextCursor).toEqual(expect.any(String));

    const second = await list.execute(ORG, agentId, { limit: 2, before: first.nextCursor });
    expect(second.items.map((item) => item.version)).toEqual([1]);
    expect(second.nextCursor).toBeUndefined();
  });

  it("shows a version's configuration only, not the agent's identity or spending", async () => {
    const { get, agentId } = await world();

    const version = await get.execute(ORG, agentId, 1);

    expect(version).toMatchObject({ version: 1, actor: ACTOR, restored_from: null });
    expect(version.config).toMatchObject({ name: 'Helper', model: 'builtin' });
    for (const field of ['id', 'organization_id', 'tokens_used', 'archived', 'created_at']) {
      expect(version.config).not.toHaveProperty(field);
    }
  });

  it('answers 404 for the versions of an agent of another organization, and for a version it lacks', async () => {
    const { list, get, agentId } = await world();

    await expect(list.execute('org-2', agentId, {})).rejects.toThrow(new NotFoundError('Agent not found'));
    await expect(get.execute(ORG, agentId, 9)).rejects.toThrow(new NotFoundError('Agent version not found'));
  });
});

describe('RestoreAgentVersion', () => {
  it("gives the agent that version's configuration again, stored as a new version with an audit entry", async () => {
    const { store, restore, agentId } = await world();

    const restored = await restore.execute(ACTOR, ORG, agentId, 1);

    expect(restored).toMatchObject({ version: 4, restored_from: 1, config: { name: 'Helper' } });
    expect(store.agent(agentId)!.name).toBe('Helper');
    expect(store.versionNumbers(agentId)).toEqual([1, 2, 3, 4]);
    expect(store.audits).toEqual([
      {
        orgId: ORG,
        action: 'agent.restored',
        target: `agent ${agentId}`,
        details: { version: 4, restored_from: 1 },
      },
    ]);
  });

  it('answers 404 for a version the agent does not have, storing no version and no audit entry', async () => {
    const { store, restore, agentId } = await world();

    await expect(restore.execute(ACTOR, ORG, agentId, 7)).rejects.toThrow(
      new NotFoundError('Agent version not found'),
    );
    expect(store.agent(agentId)!.name).toBe('Concierge');
    expect(store.versionNumbers(agentId)).toEqual([1, 2, 3]);
    expect(store.audits).toEqual([]);
  });

  it('answers 404 for an archived agent, restoring nothing', async () => {
    const { store, restore, agentId } = await world();
    await store.agentRepository.archive(ORG, agentId);

    await expect(restore.execute(ACTOR, ORG, agentId, 1)).rejects.toThrow(
      new NotFoundError('Agent not found'),
    );
    expect(store.agent(agentId)!.name).toBe('Concierge');
    expect(store.versionNumbers(agentId)).toEqual([1, 2, 3]);
  });
});
