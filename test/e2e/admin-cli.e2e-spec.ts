import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { admin, adminFails } from '../factories/admin';
import { appScript, createTestEnvironment, TestEnvironment } from '../support/test-environment';

const run = promisify(execFile);

/** The admin CLI of CONTRACTS §1: one JSON object on stdout and exit 0, or a message on stderr and exit 1. */
describe('admin CLI', () => {
  let environment: TestEnvironment;
  const org = `cli-${Date.now().toString(36)}`;

  beforeAll(async () => {
    environment = await createTestEnvironment();
  });

  afterAll(async () => {
    await environment?.dispose();
  });

  it('prints exactly one JSON object on one line, and nothing on stderr', async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      [appScript('admin'), 'keys:create', '--org', org],
      {
        env: environment.env,
      },
    );
    expect(stderr).toBe('');
    expect(stdout.endsWith('\n')).toBe(true);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(typeof JSON.parse(stdout)).toBe('object');
  });

  describe('keys', () => {
    it('keys:create makes an sk-svc- key in the named organization', async () => {
      const created = await admin(environment.env, ['keys:create', '--org', org, '--name', 'ci']);
      expect(Object.keys(created).sort()).toEqual(['id', 'key', 'org_id']);
      expect(created.key).toMatch(/^sk-svc-[A-Za-z0-9_-]{40,}$/);
      const again = await admin(environment.env, ['keys:create', '--org', org]);
      expect(again.org_id).toBe(created.org_id);
      expect(again.key).not.toBe(created.key);
    });

    it('keys:import registers a legacy key, which is not printed back', async () => {
      const imported = await admin(environment.env, [
        'keys:import',
        '--org',
        org,
        '--key',
        'old-secret-1234567890',
      ]);
      expect(Object.keys(imported).sort()).toEqual(['id', 'org_id']);
    });

    it('keys:import refuses a key with the sk-svc- prefix', async () => {
      const failed = await adminFails(environment.env, ['keys:import', '--org', org, '--key', 'sk-svc-abc']);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('key');
      expect(failed.stdout).toBe('');
    });

    it('keys:revoke revokes', async () => {
      const { id } = await admin<{ id: string }>(environment.env, ['keys:create', '--org', org]);
      expect(await admin(environment.env, ['keys:revoke', '--id', id])).toEqual({ id, revoked: true });
    });

    it('keys:list lists the keys of one organization, revoked or not, never their secret or hash', async () => {
      const listed = `${org}-list`;
      const first = await admin<{ id: string; key: string }>(environment.env, [
        'keys:create',
        '--org',
        listed,
        '--name',
        'first',
      ]);
      const second = await admin<{ id: string }>(environment.env, ['keys:create', '--org', listed]);
      await admin(environment.env, ['keys:create', '--org', `${org}-elsewhere`]);
      await admin(environment.env, ['keys:revoke', '--id', second.id]);
      const { keys } = await admin<{ keys: Record<string, unknown>[] }>(environment.env, [
        'keys:list',
        '--org',
        listed,
      ]);
      expect(keys).toEqual([
        { id: first.id, name: 'first', created_at: expect.any(String), revoked: false },
        { id: second.id, name: '', created_at: expect.any(String), revoked: true },
      ]);
      expect(Number.isNaN(Date.parse(keys[0].created_at as string))).toBe(false);
      expect(JSON.stringify(keys)).not.toContain(first.key);
    });

    it('keys:list names an unknown organization instead of creating it', async () => {
      const failed = await adminFails(environment.env, ['keys:list', '--org', `${org}-nobody`]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('Organization not found');
    });
  });

  describe('help', () => {
    it('--help lists every command, and <command> --help its flags, on stdout with exit 0', async () => {
      const top = await run(process.execPath, [appScript('admin'), '--help'], { env: environment.env });
      for (const command of [
        'keys:create',
        'keys:import',
        'keys:list',
        'keys:revoke',
        'agents:create',
        'mcp:register',
        'mcp:list',
        'mcp:remove',
      ]) {
        expect(top.stdout).toContain(command);
      }
      const create = await run(process.execPath, [appScript('admin'), 'agents:create', '--help'], {
        env: environment.env,
      });
      expect(create.stdout).toContain('usage: admin agents:create');
      expect(create.stdout).toMatch(/--org\s+organization name \(required\)/);
      expect(create.stdout).toContain('--token-budget');
      expect(create.stdout).toMatch(/--mcp\s+a JSON array of MCP servers: \{"name","url","headers"\?\}/);
      // The model forms, so nobody has to guess what "a model" is.
      expect(create.stdout).toMatch(/--model\s+builtin .*openai:<model> .*anthropic:<model>/);
      expect(create.stderr).toBe('');
      const register = await run(process.execPath, [appScript('admin'), 'mcp:register', '--help'], {
        env: environment.env,
      });
      expect(register.stdout).toContain('usage: admin mcp:register');
      expect(register.stdout).toMatch(/--command\s+the program to run .*\(required\)/);
      expect(register.stdout).toMatch(/--args\s+its arguments, a JSON array of strings/);
      expect(register.stdout).toMatch(/--env-allow\s+variables agents may set/);
    });
  });

  describe('agents', () => {
    beforeAll(async () => {
      await Promise.all([
        admin(environment.env, [
          'mcp:register',
          '--name',
          'files',
          '--command',
          'node',
          '--args',
          '["server.js"]',
        ]),
        admin(environment.env, [
          'mcp:register',
          '--name',
          'db',
          '--command',
          'node',
          '--env-allow',
          'DB_TOKEN',
        ]),
      ]);
    });

    it('agents:create takes every option and prints the agent', async () => {
      const mcp = JSON.stringify([
        {
          name: 'github',
          url: 'https://93.184.216.34/gh',
          headers: { authorization: 'Bearer secret-token' },
        },
        { name: 'local', server: 'files' },
      ]);
      const agent = await admin(environment.env, [
        'agents:create',
        '--org',
        org,
        '--name',
        'helper',
        '--instructions',
        'Be brief.',
        '--description',
        'Answers in one line.',
        '--model',
        'openai:gpt-4o-mini',
        '--memory-namespace',
        'team-notes',
        '--token-budget',
        '5000',
        '--tools',
        'clock, web,mcp:github',
        '--mcp',
        mcp,
        '--temperature',
        '0.3',
        '--max-output-tokens',
        '512',
      ]);
      expect(agent).toMatchObject({
        id: expect.any(String),
        name: 'helper',
        instructions: 'Be brief.',
        description: 'Answers in one line.',
        model: 'openai:gpt-4o-mini',
        temperature: 0.3,
        max_output_tokens: 512,
        memory_namespace: 'team-notes',
        token_budget: 5000,
        tools: ['clock', 'web', 'mcp:github'],
        archived: false,
      });
      expect(agent.mcp).toEqual([
        { name: 'github', url: 'https://93.184.216.34/gh', header_names: ['authorization'] },
        { name: 'local', server: 'files', env_names: [] },
      ]);
      // MCP header values usually hold credentials: never printed.
      expect(JSON.stringify(agent)).not.toContain('secret-token');
    });

    it('agents:create defaults to the builtin model and every tool', async () => {
      const agent = await admin(environment.env, ['agents:create', '--org', org, '--name', 'plain']);
      expect(agent).toMatchObject({
        model: 'builtin',
        tools: null,
        memory_namespace: null,
        token_budget: null,
      });
    });

    it('agents:list lists the organization agents, and agents:archive archives', async () => {
      const agent = await admin<{ id: string }>(environment.env, [
        'agents:create',
        '--org',
        org,
        '--name',
        'old',
      ]);
      expect(await admin(environment.env, ['agents:archive', '--id', agent.id])).toEqual({
        id: agent.id,
        archived: true,
      });
      const { agents } = await admin<{ agents: { id: string; archived: boolean }[] }>(environment.env, [
        'agents:list',
        '--org',
        org,
      ]);
      expect(agents.length).toBeGreaterThanOrEqual(3);
      expect(agents.find((listed) => listed.id === agent.id)).toMatchObject({ archived: true });
      const other = await admin<{ agents: unknown[] }>(environment.env, [
        'agents:list',
        '--org',
        `${org}-other`,
      ]);
      expect(other).toEqual({ agents: [] });
    });
    it('agents:update changes only the flags given and seals MCP env values', async () => {
      const agent = await admin<{ id: string }>(environment.env, [
        'agents:create',
        '--org',
        org,
        '--name',
        'before',
        '--instructions',
        'Stay.',
      ]);
      const mcp = JSON.stringify([{ name: 'db', server: 'db', env: { DB_TOKEN: 'tok-123' } }]);
      const updated = await admin(environment.env, [
        'agents:update',
        '--id',
        agent.id,
        '--name',
        'after',
        '--description',
        'Now described.',
        '--tools',
        'mcp:db',
        '--mcp',
        mcp,
      ]);
      expect(updated).toMatchObject({
        id: agent.id,
        name: 'after',
        instructions: 'Stay.',
        description: 'Now described.',
        tools: ['mcp:db'],
        mcp: [{ name: 'db', server: 'db', env_names: ['DB_TOKEN'] }],
      });
      expect(JSON.stringify(updated)).not.toContain('tok-123');
    });

    it('agents:create and agents:update set approval_required and compaction from JSON flags', async () => {
      const agent = await admin<{ id: string }>(environment.env, [
        'agents:create',
        '--org',
        org,
        '--name',
        'careful',
        '--approval-required',
        '["web", "mcp:github"]',
        '--compaction',
        '{"threshold_tokens": 1000}',
      ]);
      expect(agent).toMatchObject({
        approval_required: ['web', 'mcp:github'],
        compaction: { threshold_tokens: 1000, keep_recent_messages: 6 },
      });
      const updated = await admin(environment.env, [
        'agents:update',
        '--id',
        agent.id,
        '--approval-required',
        '[]',
        '--compaction',
        'null',
      ]);
      expect(updated).toMatchObject({ approval_required: [], compaction: null });
      const badItem = await adminFails(environment.env, [
        'agents:update',
        '--id',
        agent.id,
        '--approval-required',
        '["no spaces"]',
      ]);
      expect(badItem.code).toBe(1);
      expect(badItem.stderr).toContain('--approval-required.0');
      const notJson = await adminFails(environment.env, [
        'agents:update',
        '--id',
        agent.id,
        '--compaction',
        '1000',
      ]);
      expect(notJson.code).toBe(1);
      expect(notJson.stderr).toContain('--compaction: must be a JSON object of compaction settings, or null');
    });

    it('agents:create refuses an MCP server given as a command, as POST /agents does', async () => {
      const mcp = JSON.stringify([{ name: 'probe', command: '/usr/bin/node', args: ['-e', '1'] }]);
      const failed = await adminFails(environment.env, [
        'agents:create',
        '--org',
        org,
        '--name',
        'probe',
        '--mcp',
        mcp,
      ]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(
        "--mcp.0: Value error, command and args are not accepted: a stdio MCP server is one of the operator's catalogue",
      );
    });
  });

  describe('the MCP catalogue', () => {
    it('mcp:register adds a confirmed entry, mcp:list shows it, registering again replaces it', async () => {
      const registered = await admin(environment.env, [
        'mcp:register',
        '--name',
        'search',
        '--command',
        '/usr/local/bin/search-mcp',
        '--args',
        '["--stdio"]',
        '--env-allow',
        'SEARCH_KEY, SEARCH_REGION',
      ]);
      expect(registered).toEqual({
        name: 'search',
        command: '/usr/local/bin/search-mcp',
        args: ['--stdio'],
        env_allow: ['SEARCH_KEY', 'SEARCH_REGION'],
        confirmed: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const replaced = await admin(environment.env, [
        'mcp:register',
        '--name',
        'search',
        '--command',
        '/opt/search-mcp',
      ]);
      expect(replaced).toMatchObject({
        command: '/opt/search-mcp',
        args: [],
        env_allow: [],
        confirmed: true,
      });
      expect(replaced.created_at).toBe(registered.created_at);
      const { servers } = await admin<{ servers: { name: string }[] }>(environment.env, ['mcp:list']);
      expect(servers.find((server) => server.name === 'search')).toEqual(replaced);
    });

    it('mcp:remove takes an entry out; removing it again is an error', async () => {
      await admin(environment.env, ['mcp:register', '--name', 'gone', '--command', 'node']);
      expect(await admin(environment.env, ['mcp:remove', '--name', 'gone'])).toEqual({
        name: 'gone',
        removed: true,
      });
      const { servers } = await admin<{ servers: { name: string }[] }>(environment.env, ['mcp:list']);
      expect(servers.map((server) => server.name)).not.toContain('gone');
      const again = await adminFails(environment.env, ['mcp:remove', '--name', 'gone']);
      expect(again.stderr).toContain('MCP server not found in the catalogue');
    });

    it.each([
      ['--args that are not a JSON list', ['--command', 'node', '--args', 'server.js'], '--args'],
      ['a bad name', ['--command', 'node', '--name', 'a b'], '--name'],
      ['an empty command', ['--command=', '--name', 'x'], '--command'],
      ['a variable name that is not one', ['--command', 'node', '--env-allow', 'A-B'], '--env-allow.0'],
      [
        'a variable that decides what runs',
        ['--command', 'node', '--env-allow', 'TOKEN,NODE_OPTIONS'],
        '--env-allow.1: Value error, a variable that changes what the server loads or runs',
      ],
    ])('mcp:register refuses %s', async (_name, flags, message) => {
      const failed = await adminFails(environment.env, ['mcp:register', '--name', 'bad', ...flags]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(message);
    });
  });

  describe('bad input: exit 1 and a message on stderr', () => {
    const cases: [string, string[], string][] = [
      ['an unknown command', ['keys:rotate'], 'unknown command: keys:rotate\n\nusage'],
      ['no command', [], 'no command given\n\nusage'],
      ['a missing required flag', ['keys:create'], '--org'],
      ['a flag without its value', ['keys:create', '--org'], '--org'],
      ['a stray argument', ['keys:create', 'acme'], 'unexpected argument'],
      ['an unknown model', ['agents:create', '--org', 'o', '--name', 'a', '--model', 'gpt'], 'model'],
      ['an unknown tool', ['agents:create', '--org', 'o', '--name', 'a', '--tools', 'shell'], 'shell'],
      [
        'a token budget that is not a number',
        ['agents:create', '--org', 'o', '--name', 'a', '--token-budget', 'x'],
        'token-budget',
      ],
      [
        'a negative token budget',
        ['agents:create', '--org', 'o', '--name', 'a', '--token-budget', '-5'],
        'token-budget',
      ],
      [
        '--mcp that is not a JSON list',
        ['agents:create', '--org', 'o', '--name', 'a', '--mcp', '{"name":1'],
        '--mcp',
      ],
      [
        'a temperature out of range',
        ['agents:create', '--org', 'o', '--name', 'a', '--temperature', '3'],
        'temperature',
      ],
      [
        'an unknown agent',
        ['agents:archive', '--id', '00000000-0000-7000-8000-000000000000'],
        'Agent not found',
      ],
    ];
    let failures: Map<string, Awaited<ReturnType<typeof adminFails>>>;

    // Each CLI run boots the app context (~0.6 s): run them side by side, then check each.
    beforeAll(async () => {
      const results = await Promise.all(cases.map(([, args]) => adminFails(environment.env, args)));
      failures = new Map(cases.map(([name], index) => [name, results[index]]));
    });

    it.each(cases)('%s', (name, _args, message) => {
      const failed = failures.get(name)!;
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(message);
      expect(failed.stdout).toBe('');
    });
  });

  describe('malformed flags: refused before the app boots, exit 1', () => {
    const cases: [string, string[], string][] = [
      ['an id that is not a UUID', ['keys:revoke', '--id', 'not-a-uuid'], 'Invalid id: "not-a-uuid"'],
      ['an agent id that is not a UUID', ['agents:archive', '--id', "1' OR 1=1"], 'Invalid id:'],
      [
        'an unknown flag',
        ['keys:revoke', '--id', '00000000-0000-7000-8000-000000000000', '--force', 'x'],
        '--force',
      ],
    ];

    it.each(cases)('%s', async (_name, args, message) => {
      const failed = await adminFails(environment.env, args);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(message);
      expect(failed.stdout).toBe('');
    });
  });

  describe('settings', () => {
    it('a bad setting stops the admin CLI with a message naming it', async () => {
      const failed = await adminFails({ ...environment.env, REDIS_URL: 'localhost:6379' }, [
        'agents:list',
        '--org',
        org,
      ]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('Invalid setting REDIS_URL');
    });

    it('a bad setting stops the gateway with a message naming it', async () => {
      const child = spawn(process.execPath, [appScript('gateway')], {
        env: { ...environment.env, PORT: 'abc' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toContain('Invalid setting PORT');
    });

    it('a bad setting stops the worker with a message naming it', async () => {
      const child = spawn(process.execPath, [appScript('worker')], {
        env: { ...environment.env, WORKER_HEALTH_PORT: '70000' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toContain('Invalid setting WORKER_HEALTH_PORT');
    });
  });
});
