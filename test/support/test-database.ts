import { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import { dataSourceOptions, MessageRepository, RunRepository, ThreadRepository } from '@app/persistence';
import { createTestEnvironment, TestEnvironment } from './test-environment';

/** The repositories a conversation is stored through, which most suites of repositories arrange with. */
interface ConversationRepositories {
  threads: ThreadRepository;
  messages: MessageRepository;
  runs: RunRepository;
}

/** A test environment's database through the service's own DataSource, for the suites of repositories. */
export class TestDatabase {
  private openedEnvironment?: TestEnvironment;
  private openedDb?: DataSource;
  private openedConversations?: ConversationRepositories;

  constructor(private readonly poolSize: number) {}

  async open(): Promise<void> {
    this.openedEnvironment = await createTestEnvironment();
    const settings = loadSettings({ DATABASE_URL: this.openedEnvironment.databaseUrl });
    this.openedDb = await new DataSource(dataSourceOptions(settings, this.poolSize)).initialize();
    this.openedConversations = {
      threads: new ThreadRepository(this.openedDb),
      messages: new MessageRepository(this.openedDb),
      runs: new RunRepository(this.openedDb),
    };
  }

  async close(): Promise<void> {
    await this.openedDb?.destroy();
    await this.openedEnvironment?.dispose();
  }

  get environment(): TestEnvironment {
    return this.opened(this.openedEnvironment);
  }

  get db(): DataSource {
    return this.opened(this.openedDb);
  }

  get threads(): ThreadRepository {
    return this.opened(this.openedConversations).threads;
  }

  get messages(): MessageRepository {
    return this.opened(this.openedConversations).messages;
  }

  get runs(): RunRepository {
    return this.opened(this.openedConversations).runs;
  }

  /** Organizations with these ids, each named `org-<id>`. */
  async addOrganizations(...ids: string[]): Promise<void> {
    for (const id of ids) {
      await this.db.query(`INSERT INTO organizations (id, name) VALUES ($1, $2)`, [id, `org-${id}`]);
    }
  }

  private opened<T>(part: T | undefined): T {
    if (part === undefined) throw new Error('the database is used before its beforeAll hook opened it');
    return part;
  }
}

/** A database opened in a beforeAll hook and dropped in an afterAll hook of the describe block it is called in. */
export function useTestDatabase(poolSize = 2): TestDatabase {
  const database = new TestDatabase(poolSize);
  beforeAll(() => database.open());
  afterAll(() => database.close());
  return database;
}
