import { INestApplicationContext } from '@nestjs/common';
import { InvalidInputError } from '@app/contracts';
import { ManageAgents, ManageKeys } from '@app/identity';
import { McpServerConfig } from '@app/persistence';

export type Flags = Record<string, string | undefined>;

/** Parses `--name value` pairs; a flag given twice keeps the last value. */
export function parseFlags(args: string[]): Flags {
  const flags: Flags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--'))
      throw new InvalidInputError([{ loc: [arg], msg: 'unexpected argument', type: 'value_error' }]);
    const eq = arg.indexOf('=');
    if (eq > 0) {
      flags[arg.slice(2, eq)] = arg.slice(eq + 1);
    } else {
      const value = args[i + 1];
      if (value === undefined || value.startsWith('--')) {
        throw new InvalidInputError([{ loc: [arg], msg: 'needs a value', type: 'missing' }]);
      }
      flags[arg.slice(2)] = value;
      i++;
    }
  }
  return flags;
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

/** `--mcp` takes a JSON array of servers: [{"name","command","args"} | {"name","url","headers"}]. */
function mcpServers(flags: Flags): McpServerConfig[] | undefined {
  if (flags.mcp === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(flags.mcp);
    if (!Array.isArray(parsed)) throw new Error('not a list');
    return parsed as McpServerConfig[];
  } catch {
    throw new InvalidInputError([
      { loc: ['--mcp'], msg: 'must be a JSON array of MCP servers', type: 'value_error' },
    ]);
  }
}

type Command = (app: INestApplicationContext, flags: Flags) => Promise<object>;

/** The commands of CONTRACTS §1, each printing one JSON object. */
export const COMMANDS: Record<string, Command> = {
  'keys:create': (app, flags) => app.get(ManageKeys).create(required(flags, 'org'), flags.name),
  'keys:import': (app, flags) =>
    app.get(ManageKeys).importLegacy(required(flags, 'org'), required(flags, 'key'), flags.name),
  'keys:revoke': (app, flags) => app.get(ManageKeys).revoke(required(flags, 'id')),
  'agents:create': (app, flags) =>
    app.get(ManageAgents).create({
      org: required(flags, 'org'),
      name: required(flags, 'name'),
      instructions: flags.instructions,
      model: flags.model,
      memoryNamespace: flags['memory-namespace'],
      tokenBudget: optionalNumber(flags, 'token-budget'),
      tools:
        flags.tools === undefined
          ? undefined
          : flags.tools
              .split(',')
              .map((tool) => tool.trim())
              .filter(Boolean),
      mcpServers: mcpServers(flags),
      modelOptions: {
        temperature: optionalNumber(flags, 'temperature'),
        maxOutputTokens: optionalNumber(flags, 'max-output-tokens'),
      },
    }),
  'agents:archive': (app, flags) => app.get(ManageAgents).archive(required(flags, 'id')),
  'agents:list': (app, flags) => app.get(ManageAgents).list(required(flags, 'org')),
};
