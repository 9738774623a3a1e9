import { AgentTool, RunScope, ToolCallContext, ToolError } from '@app/agent';
import {
  MemoryFileEntity,
  MemoryFileKey,
  MemoryFileRepository,
  MemoryFileWrite,
  Scope,
} from '@app/persistence';
import { ListMemoryFiles } from '../use-cases/list-memory-files.use-case';
import { ReadMemoryFile } from '../use-cases/read-memory-file.use-case';
import { WriteMemoryFile } from '../use-cases/write-memory-file.use-case';
import { MEMORY_WRITE_ATTEMPTS, MemoryToolSource } from './memory-tool-source';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** The repository's contract in memory: conditional writes on the version, a yield before each statement. */
class FakeMemoryFiles {
  readonly files = new Map<string, MemoryFileEntity>();
  writes = 0;
  private clock = 0;
  /** Called before each conditional update: lets a test slip in another writer. */
  beforeUpdate: () => void = () => undefined;

  private key(scope: Scope, key: MemoryFileKey) {
    return `${scope.orgId}|${key.namespace}|${key.path}`;
  }

  private stamp(): string {
    this.clock += 1;
    return `v${this.clock}`;
  }

  async find(scope: Scope, key: MemoryFileKey): Promise<MemoryFileEntity | null> {
    await tick();
    const file = this.files.get(this.key(scope, key));
    return file ? { ...file } : null;
  }

  async list(scope: Scope, namespace: string): Promise<MemoryFileEntity[]> {
    await tick();
    return [...this.files.values()].filter(
      (file) => file.orgId === scope.orgId && file.namespace === namespace,
    );
  }

  async create(scope: Scope, file: MemoryFileWrite): Promise<MemoryFileEntity | null> {
    await tick();
    this.writes += 1;
    const key = this.key(scope, file);
    if (this.files.has(key)) return null;
    const now = new Date();
    const { writtenByUserId, ...content } = file;
    const created = Object.assign(new MemoryFileEntity(), {
      id: key,
      orgId: scope.orgId,
      ...content,
      writtenByUserIds: writtenByUserId ? [writtenByUserId] : [],
      createdAt: now,
      updatedAt: now,
      version: this.stamp(),
    });
    this.files.set(key, created);
    return { ...created };
  }

  async updateIfVersion(
    scope: Scope,
    file: MemoryFileWrite,
    version: string,
  ): Promise<MemoryFileEntity | null> {
    await tick();
    this.beforeUpdate();
    this.writes += 1;
    const stored = this.files.get(this.key(scope, file));
    if (!stored || stored.version !== version) return null;
    Object.assign(stored, { content: file.content, purpose: file.purpose, version: this.stamp() });
    if (file.writtenByUserId && !stored.writtenByUserIds.includes(file.writtenByUserId)) {
      stored.writtenByUserIds = [...stored.writtenByUserIds, file.writtenByUserId];
    }
    return { ...stored };
  }

  /** Another run's write, straight into the store. */
  bump(scope: Scope, key: MemoryFileKey, content: string): void {
    const stored = this.files.get(this.key(scope, key))!;
    Object.assign(stored, { content, version: this.stamp() });
  }
}

const scope: RunScope = {
  orgId: 'org-1',
  userId: null,
  agentId: 'agent-1',
  threadId: 'thread-1',
  messageId: 'message-1',
  memoryNamespace: 'ns',
  sourceIds: null,
  documentIds: null,
};

const contextOf = (overrides: Partial<RunScope> = {}): ToolCallContext => ({
  ...scope,
  ...overrides,
  idempotencyKey: 'message-1:1:call-1',
  step: 1,
  callId: 'call-1',
  signal: new AbortController().signal,
});

describe('MemoryToolSource', () => {
  let store: FakeMemoryFiles;
  let source: MemoryToolSource;
  let tools: Record<string, AgentTool>;

  beforeEach(() => {
    store = new FakeMemoryFiles();
    const repository = store as unknown as MemoryFileRepository;
    source = new MemoryToolSource(
      new ListMemoryFiles(repository),
      new ReadMemoryFile(repository),
      new WriteMemoryFile(repository),
    );
    tools = Object.fromEntries(source.toolsFor(scope).map((tool) => [tool.name, tool]));
  });

  const write = (args: Record<string, unknown>, context = contextOf()) =>
    tools.memory_write.execute(args, context);

  it('offers no tool to a run without a namespace, and three under the memory permission otherwise', () => {
    expect(source.toolsFor({ ...scope, memoryNamespace: null })).toEqual([]);
    expect(Object.keys(tools).sort()).toEqual(['memory_list', 'memory_read', 'memory_write']);
    expect(Object.values(tools).every((tool) => tool.permission === 'memory')).toBe(true);
  });

  it('writes, reads and lists within the run namespace of its organization only', async () => {
    await write({ path: 'notes/a.md', content: 'hi', purpose: 'test' });
    expect(await tools.memory_read.execute({ path: 'notes/a.md' }, contextOf())).toMatchObject({
      content: 'hi',
      purpose: 'test',
    });
    const [stored] = store.files.values();
    expect(stored).toMatchObject({ orgId: 'org-1', namespace: 'ns', path: 'notes/a.md' });

    await expect(
      tools.memory_read.execute({ path: 'notes/a.md' }, contextOf({ memoryNamespace: 'other' })),
    ).rejects.toThrow(ToolError);
    await expect(
      tools.memory_read.execute({ path: 'notes/a.md' }, contextOf({ orgId: 'org-2' })),
    ).rejects.toThrow('No memory file at "notes/a.md"');
    expect(await tools.memory_list.execute({}, contextOf())).toEqual({
      files: [expect.objectContaining({ path: 'notes/a.md', purpose: 'test' })],
    });
  });

  it("records the run's end user among the file's writers, on creation and on every update", async () => {
    await write({ path: 'a.md', content: 'one', purpose: 'p' }, contextOf({ userId: 'alice' }));
    expect([...store.files.values()][0].writtenByUserIds).toEqual(['alice']);
    await write({ path: 'a.md', content: 'two', purpose: 'p' }, contextOf({ userId: 'bob' }));
    expect([...store.files.values()][0]).toMatchObject({
      content: 'two',
      writtenByUserIds: ['alice', 'bob'],
    });
  });

  it('replaces an existing file on the version it just read', async () => {
    await write({ path: 'a.md', content: 'one', purpose: 'p' });
    await write({ path: 'a.md', content: 'two', purpose: 'p' });
    expect([...store.files.values()].map((file) => file.content)).toEqual(['two']);
  });

  it.each(['a/b/c.md', '../a.md', 'a\\b', '', 'a//b'])(
    'refuses the path %j and writes nothing',
    async (path) => {
      await expect(write({ path, content: 'x', purpose: 'p' })).rejects.toThrow(ToolError);
      expect(store.writes).toBe(0);
    },
  );

  it('refuses arguments of the wrong type', async () => {
    await expect(write({ path: 'a.md', content: 3, purpose: 'p' })).rejects.toThrow(
      'content must be a string',
    );
    await expect(tools.memory_list.execute({ folder: 'a/b' }, contextOf())).rejects.toThrow(ToolError);
  });

  it('retries on a version conflict and writes on the newest version', async () => {
    await write({ path: 'a.md', content: 'base', purpose: 'p' });
    let intrusions = 2;
    store.beforeUpdate = () => {
      if (intrusions-- > 0) store.bump({ orgId: 'org-1' }, { namespace: 'ns', path: 'a.md' }, 'theirs');
    };
    const result = (await write({ path: 'a.md', content: 'mine', purpose: 'p' })) as { version: string };
    const [stored] = store.files.values();
    expect(stored.content).toBe('mine');
    expect(result.version).toBe(stored.version);
    // 1 create, then 2 lost races and the winning update.
    expect(store.writes).toBe(4);
  });

  it('gives up with a tool error after the last attempt, without overwriting the other writer', async () => {
    await write({ path: 'a.md', content: 'base', purpose: 'p' });
    store.beforeUpdate = () => store.bump({ orgId: 'org-1' }, { namespace: 'ns', path: 'a.md' }, 'theirs');
    await expect(write({ path: 'a.md', content: 'mine', purpose: 'p' })).rejects.toThrow(/kept changing/);
    expect(store.writes).toBe(1 + MEMORY_WRITE_ATTEMPTS);
    expect([...store.files.values()][0].content).toBe('theirs');
  });

  it('lets two concurrent writers of a new file both land, one after the other', async () => {
    const results = await Promise.all([
      write({ path: 'race.md', content: 'first', purpose: 'p' }),
      write({ path: 'race.md', content: 'second', purpose: 'p' }),
    ]);
    const versions = (results as { version: string }[]).map((result) => result.version);
    expect(new Set(versions).size).toBe(2);
    const [stored] = store.files.values();
    // The later version is the stored one: its writer saw the other's write and replaced it knowingly.
    expect(stored.version).toBe(versions.sort().at(-1));
  });
});
