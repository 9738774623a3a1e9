import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { INestApplicationContext } from '@nestjs/common';
import {
  ArchiveAgent,
  CreateAgent,
  GetAgentVersion,
  ListAgents,
  ListAgentVersions,
  ListMcpServers,
  RegisterMcpServer,
  RemoveMcpServer,
  RestoreAgentVersion,
  UpdateAgent,
} from '@app/agent-management';
import {
  AuditActor,
  CreateAgentDto,
  InvalidInputError,
  isRowId,
  NotFoundError,
  PG_INTEGER_MAX,
  RegisterMcpServerDto,
  StartEvalRunDto,
  UpdateAgentDto,
  validateRequest,
} from '@app/contracts';
import { GetEvalRun, StartEvalRun } from '@app/evals';
import { CreateKey, ImportKey, ListKeys, RevokeKey } from '@app/identity';
import { AgentRepository, OrganizationRepository } from '@app/persistence';

type Flags = Record<string, string | undefined>;

/** What a command accepts: its flags with their help, the required ones marked. */
interface CommandSpec {
  summary: string;
  flags: Record<string, { help: string; required?: boolean; uuid?: boolean }>;
  run: (app: INestApplicationContext, flags: Flags) => Promise<object>;
}

/** A mistake in how the CLI was called, printed as is: never a database message. */
export class UsageError extends Error {}

/** A gate (`evals:run --min-pass-rate`) that was not met: its result is printed, and the CLI exits 1. */
export class BarNotMet extends Error {
  constructor(
    readonly result: object,
    message: string,
  ) {
    super(message);
  }
}

/** How often `evals:run` looks at its run. */
const EVAL_POLL_MS = 500;

/**
 * Parses `--name value` (or `--name=value`) for one command with `node:util` parseArgs: unknown flags and stray
 * arguments are refused, a flag given twice keeps the last value, `--help` asks for the command's help.
 */
export function parseFlags(spec: CommandSpec, args: string[]): { help: boolean; flags: Flags } {
  const options = Object.fromEntries(
    Object.keys(spec.flags).map((name) => [name, { type: 'string' as const }]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(parseErrorMessage(error as Error & { code?: string }, args));
  }
  const { help, ...flags } = values as Flags & { help?: boolean };
  // Ids are checked before the app boots: the database's own message would say nothing useful.
  for (const [name, flag] of Object.entries(spec.flags)) {
    const value = flags[name];
    if (flag.uuid && value !== undefined && !isRowId(value)) {
      throw new UsageError(`Invalid id: ${JSON.stringify(value)} is not a UUID (--${name})`);
    }
  }
  return { help: help === true, flags };
}

/** parseArgs' errors in the CLI's words, naming the flag or argument at fault. */
function parseErrorMessage(error: Error & { code?: string }, args: string[]): string {
  const named = /'(-[^' ]+)/.exec(error.message)?.[1];
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `${/'([^']*)'/.exec(error.message)?.[1] ?? args[0]}: unexpected argument`;
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `${named ?? 'option'}: unknown flag (see --help)`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return `${named ?? 'option'}: needs a value (one starting with "-" is written --flag=-value)`;
    default:
      return error.message;
  }
}

/** The help of one command: its summary and every flag. */
export function commandHelp(name: string, spec: CommandSpec): string {
  const width = Math.max(...Object.keys(spec.flags).map((flag) => flag.length), 4) + 2;
  const lines = Object.entries(spec.flags).map(
    ([flag, { help, required }]) => `  --${flag.padEnd(width)}${help}${required ? ' (required)' : ''}`,
  );
  return [
    `usage: admin ${name} [--flag value ...]`,
    '',
    spec.summary,
    '',
    ...lines,
    `  --${'help'.padEnd(width)}this help`,
  ].join('\n');
}

/** The top-level help: every command with its summary. */
export function topLevelHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length)) + 2;
  return [
    `usage: admin <${Object.keys(COMMANDS).join('|')}> [--flag value ...]`,
    '',
    ...Object.entries(COMMANDS).map(([name, spec]) => `  ${name.padEnd(width)}${spec.summary}`),
    '',
    'admin <command> --help shows the flags of a command.',
  ].join('\n');
}

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (!value) throw new InvalidInputError([{ loc: [`--${name}`], msg: 'is required', type: 'missing' }]);
  return value;
}

function optionalNumber(flags: Flags, name: string): number | undefined {
  if (flags[name] === undefined) return undefined;
  const value = Number(flags[name]);
  if (!Number.isFinite(value))
    throw new InvalidInputError([{ loc: [`--${name}`], msg: 'must be a number', type: 'value_error' }]);
  return value;
}

/** A flag holding a JSON array (`--mcp`, `--args`), parsed; its items are checked by the DTO. */
function jsonArray(flags: Flags, name: string, what: string): unknown[] | undefined {
  if (flags[name] === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(flags[name]);
    if (!Array.isArray(parsed)) throw new Error('not a list');
    return parsed;
  } catch {
    throw new InvalidInputError([
      { loc: [`--${name}`], msg: `must be a JSON array of ${what}`, type: 'value_error' },
    ]);
  }
}

/** A flag holding a JSON object or `null` (`--compaction`), parsed; its fields are checked by the DTO. */
function jsonObjectOrNull(flags: Flags, name: string, what: string): object | null | undefined {
  if (flags[name] === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(flags[name]);
    if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed)))
      throw new Error('not an object');
    return parsed;
  } catch {
    throw new InvalidInputError([
      { loc: [`--${name}`], msg: `must be a JSON object of ${what}, or null`, type: 'value_error' },
    ]);
  }
}

/** `--x a,b` as a list; an empty value is an empty list. */
function commaList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** `--tools a,b` as a list; an empty value clears it (every tool the service has). */
function toolList(flags: Flags): string[] | null | undefined {
  if (flags.tools === undefined) return undefined;
  const tools = commaList(flags.tools);
  return tools.length > 0 ? tools : null;
}

/** The agent flags as the body of POST/PUT /agents, checked by the same DTO as the HTTP API. */
async function agentBody<T extends object>(dto: new () => T, flags: Flags): Promise<T> {
  const plain = {
    name: flags.name,
    instructions: flags.instructions,
    description: flags.description,
    model: flags.model,
    fallback_models: flags['fallback-models'] === undefined ? undefined : commaList(flags['fallback-models']),
    guardrails: jsonObjectOrNull(flags, 'guardrails', 'guardrails'),
    memory_namespace: flags['memory-namespace'],
    token_budget: optionalNumber(flags, 'token-budget'),
    tools: toolList(flags),
    mcp: jsonArray(flags, 'mcp', 'MCP servers'),
    approval_required: jsonArray(flags, 'approval-required', 'tool permissions or tool names'),
    compaction: jsonObjectOrNull(flags, 'compaction', 'compaction settings'),
    temperature: optionalNumber(flags, 'temperature'),
    max_output_tokens: optionalNumber(flags, 'max-output-tokens'),
  };
  const result = validateRequest(dto, JSON.parse(JSON.stringify(plain)) as object, 'body');
  if (!result.ok) throw new InvalidInputError(result.issues);
  return result.value;
}

/** The flags of `mcp:register` as its DTO, checked by the same rules as a request body. */
function catalogueEntry(flags: Flags): RegisterMcpServerDto {
  const plain = {
    name: flags.name,
    command: flags.command,
    args: jsonArray(flags, 'args', 'strings'),
    env_allow: flags['env-allow'] === undefined ? undefined : commaList(flags['env-allow']),
  };
  const result = validateRequest(RegisterMcpServerDto, JSON.parse(JSON.stringify(plain)) as object, 'body');
  if (!result.ok) throw new InvalidInputError(result.issues);
  return result.value;
}

/**
 * The audit log's actor for every change the CLI makes: the operator, named by the OS user running it (its uid
 * when the system has no name for it, as in a container started with an arbitrary uid).
 */
function adminActor(): AuditActor {
  try {
    return { type: 'admin', id: userInfo().username };
  } catch {
    return { type: 'admin', id: `uid:${process.getuid?.() ?? 'unknown'}` };
  }
}

async function orgId(app: INestApplicationContext, flags: Flags): Promise<string> {
  return (await app.get(OrganizationRepository).findOrCreateByName(required(flags, 'org'))).id;
}

/** The organization of an agent named only by id: the admin acts for every organization. */
async function orgOfAgent(app: INestApplicationContext, id: string): Promise<string> {
  const agent = await app.get(AgentRepository).findById(id);
  if (!agent) throw new NotFoundError('Agent not found');
  return agent.orgId;
}

/** A flag holding a number from 0 to 1 (`--min-pass-rate`). */
function fractionFlag(flags: Flags, name: string): number | undefined {
  if (flags[name] === undefined) return undefined;
  const value = Number(flags[name]);
  if (flags[name].trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new InvalidInputError([
      { loc: [`--${name}`], msg: 'must be a number from 0 to 1', type: 'value_error' },
    ]);
  }
  return value;
}

/** `--version N`: a version number of an agent (CONTRACTS §23). */
function versionFlag(flags: Flags): number {
  const version = Number(required(flags, 'version'));
  if (!Number.isInteger(version) || version < 1 || version > PG_INTEGER_MAX) {
    throw new InvalidInputError([
      { loc: ['--version'], msg: `must be a whole number from 1 to ${PG_INTEGER_MAX}`, type: 'value_error' },
    ]);
  }
  return version;
}

const VERSION_FLAGS: CommandSpec['flags'] = {
  id: { help: 'the agent id', required: true, uuid: true },
  version: { help: 'the version number', required: true },
};

const AGENT_FLAGS: CommandSpec['flags'] = {
  instructions: { help: 'the system prompt (never shown to callers)' },
  description: {
    help: "what callers are told about the agent: its MCP tool's description (at most 500 characters)",
  },
  model: {
    help:
      'builtin (the default: offline, deterministic), openai:<model> (OPENAI_BASE_URL, OPENAI_API_KEY) or ' +
      'anthropic:<model> (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY)',
  },
  'fallback-models': {
    help: 'models (as --model), comma-separated, tried in order when a step fails before its first delta',
  },
  guardrails: {
    help: 'a JSON object {"pii": "off"|"redact"|"block", "blocked_terms"?, "moderation_model"?}; null for none',
  },
  'memory-namespace': { help: 'the memory namespace of the agent' },
  'token-budget': { help: 'the token budget of a reply' },
  tools: { help: 'tool names, comma-separated; empty for every tool' },
  mcp: {
    help:
      'a JSON array of MCP servers: {"name","url","headers"?} (remote, public address) or ' +
      '{"name","server","env"?} (a server of the catalogue, see mcp:list); replaces the list',
  },
  'approval-required': {
    help:
      'a JSON array of tool permissions (web, mcp:<server>) or tool names whose calls wait for a person; ' +
      'replaces the list',
  },
  compaction: {
    help:
      'a JSON object {"threshold_tokens", "keep_recent_messages"?}: when runs summarize older messages; ' +
      'null for the service default',
  },
  temperature: { help: 'the sampling temperature' },
  'max-output-tokens': { help: 'the output token limit of a model step' },
};

/** The commands of CONTRACTS §1, each printing one JSON object; the agent commands run the /agents use cases. */
export const COMMANDS: Record<string, CommandSpec> = {
  'keys:create': {
    summary: 'Creates an sk-svc- key for an organization (created on first use); prints the secret once.',
    flags: { org: { help: 'organization name', required: true }, name: { help: 'a label for the key' } },
    run: (app, flags) => app.get(CreateKey).execute(adminActor(), required(flags, 'org'), flags.name),
  },
  'keys:import': {
    summary: 'Registers a key made before the sk-svc- prefix existed.',
    flags: {
      org: { help: 'organization name', required: true },
      key: { help: 'the legacy key', required: true },
      name: { help: 'a label for the key' },
    },
    run: (app, flags) =>
      app.get(ImportKey).execute(adminActor(), required(flags, 'org'), required(flags, 'key'), flags.name),
  },
  'keys:list': {
    summary: "Lists an organization's keys: id, name, created_at, revoked (never the secret or its hash).",
    flags: { org: { help: 'organization name', required: true } },
    run: (app, flags) => app.get(ListKeys).execute(required(flags, 'org')),
  },
  'keys:revoke': {
    summary: 'Revokes a key; every replica refuses it at once.',
    flags: { id: { help: 'the key id', required: true, uuid: true } },
    run: (app, flags) => app.get(RevokeKey).execute(adminActor(), required(flags, 'id')),
  },
  'agents:create': {
    summary: 'Creates an agent in an organization (created on first use).',
    flags: {
      org: { help: 'organization name', required: true },
      name: { help: 'agent name', required: true },
      ...AGENT_FLAGS,
    },
    run: async (app, flags) => {
      required(flags, 'name');
      const body = await agentBody(CreateAgentDto, flags);
      return app.get(CreateAgent).execute(adminActor(), await orgId(app, flags), body);
    },
  },
  'agents:update': {
    summary: 'Changes the given fields of an agent.',
    flags: {
      id: { help: 'the agent id', required: true, uuid: true },
      name: { help: 'agent name' },
      ...AGENT_FLAGS,
    },
    run: async (app, flags) => {
      const id = required(flags, 'id');
      const body = await agentBody(UpdateAgentDto, flags);
      return app.get(UpdateAgent).execute(adminActor(), await orgOfAgent(app, id), id, body);
    },
  },
  'agents:archive': {
    summary: 'Archives an agent: it stays listed, new runs are refused.',
    flags: { id: { help: 'the agent id', required: true, uuid: true } },
    run: async (app, flags) => {
      const id = required(flags, 'id');
      return app.get(ArchiveAgent).execute(adminActor(), await orgOfAgent(app, id), id);
    },
  },
  'agents:versions': {
    summary: "Lists an agent's versions, newest first (the latest 100).",
    flags: { id: { help: 'the agent id', required: true, uuid: true } },
    run: async (app, flags) => {
      const id = required(flags, 'id');
      const page = await app.get(ListAgentVersions).execute(await orgOfAgent(app, id), id, { limit: 100 });
      return { versions: page.items };
    },
  },
  'agents:version': {
    summary: 'Shows one version of an agent: its whole configuration, secrets never shown.',
    flags: VERSION_FLAGS,
    run: async (app, flags) => {
      const id = required(flags, 'id');
      return app.get(GetAgentVersion).execute(await orgOfAgent(app, id), id, versionFlag(flags));
    },
  },
  'agents:restore': {
    summary: "Gives an agent a version's configuration again, stored as its newest version.",
    flags: VERSION_FLAGS,
    run: async (app, flags) => {
      const id = required(flags, 'id');
      return app
        .get(RestoreAgentVersion)
        .execute(adminActor(), await orgOfAgent(app, id), id, versionFlag(flags));
    },
  },
  'evals:run': {
    summary:
      'Runs a dataset against an agent (its latest version, or --version) on the workers and waits for the end; ' +
      'prints the run. With --min-pass-rate, exits 1 when the pass rate is under it: a gate for CI.',
    flags: {
      dataset: { help: 'the dataset id', required: true, uuid: true },
      agent: { help: 'the agent id', required: true, uuid: true },
      version: { help: 'the agent version (default: its latest)' },
      'judge-model': { help: "the model grading rubric items (default: the version's model)" },
      'min-pass-rate': { help: 'the bar, from 0 to 1' },
      'timeout-seconds': { help: 'how long to wait for the run (default 3600)' },
    },
    run: async (app, flags) => {
      const agentId = required(flags, 'agent');
      const bar = fractionFlag(flags, 'min-pass-rate');
      const timeoutMs = (optionalNumber(flags, 'timeout-seconds') ?? 3600) * 1000;
      const org = await orgOfAgent(app, agentId);
      const body = validateRequest(
        StartEvalRunDto,
        JSON.parse(
          JSON.stringify({
            dataset_id: required(flags, 'dataset'),
            agent_id: agentId,
            agent_version: flags.version === undefined ? undefined : versionFlag(flags),
            judge_model: flags['judge-model'],
          }),
        ) as object,
        'body',
      );
      if (!body.ok) throw new InvalidInputError(body.issues);
      const { id } = await app.get(StartEvalRun).execute(org, body.value);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const run = await app.get(GetEvalRun).execute(org, id);
        if (run.status === 'done') {
          if (bar !== undefined && run.summary.pass_rate < bar) {
            throw new BarNotMet(run, `eval run ${id}: pass rate ${run.summary.pass_rate} is under ${bar}`);
          }
          return run;
        }
        if (Date.now() > deadline) throw new UsageError(`eval run ${id} still running after the timeout`);
        await new Promise((resolve) => setTimeout(resolve, EVAL_POLL_MS));
      }
    },
  },
  'agents:list': {
    summary: "Lists an organization's agents, archived ones included.",
    flags: { org: { help: 'organization name', required: true } },
    run: async (app, flags) =>
      app.get(ListAgents).execute(await orgId(app, flags), { includeArchived: true }),
  },
  'mcp:register': {
    summary:
      'Adds a stdio MCP server to the catalogue agents name by "server" (deployment-wide), or replaces it; ' +
      "registering a migrated name confirms it. It runs as the worker's user.",
    flags: {
      name: { help: 'the name agents give as "server"', required: true },
      command: { help: 'the program to run (an absolute path is best)', required: true },
      args: { help: 'its arguments, a JSON array of strings, e.g. ["server.js","--stdio"]' },
      'env-allow': { help: 'variables agents may set in its env, comma-separated (default: none)' },
    },
    run: (app, flags) => {
      required(flags, 'name');
      required(flags, 'command');
      return app.get(RegisterMcpServer).execute(adminActor(), catalogueEntry(flags));
    },
  },
  'mcp:list': {
    summary:
      'Lists the catalogue of stdio MCP servers; migrated entries show confirmed: false until registered.',
    flags: {},
    run: (app) => app.get(ListMcpServers).execute(),
  },
  'mcp:remove': {
    summary: 'Removes a server from the catalogue: agents naming it stop getting its tools.',
    flags: { name: { help: 'the catalogued name', required: true } },
    run: (app, flags) => app.get(RemoveMcpServer).execute(adminActor(), required(flags, 'name')),
  },
};
