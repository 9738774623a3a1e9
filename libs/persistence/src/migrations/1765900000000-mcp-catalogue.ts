import { createHash } from 'node:crypto';
import { MigrationInterface, QueryRunner } from 'typeorm';

/** An agent's `mcp` item as stored before (command form) and after (catalogue form) this migration. */
interface StoredMcpItem {
  name: string;
  command?: string;
  args?: string[];
  server?: string;
  url?: string;
  envNames?: string[];
  [other: string]: unknown;
}

interface CatalogueEntry {
  name: string;
  command: string;
  args: string[];
  envAllow: Set<string>;
}

/**
 * The operator's catalogue of stdio MCP servers (CONTRACTS §15, issue 28): agents no longer store a command,
 * which let a service key start any program on a worker, but name a catalogue entry by `server`. Each distinct
 * command (with its args) agents stored is moved into the catalogue under `migrated-<hash>`, unconfirmed, so it
 * does not start until the operator registers it again under that name; the variables it allows are the ones
 * its agents gave it. Their values stay sealed in the agents' items, untouched.
 */
export class McpCatalogue1765900000000 implements MigrationInterface {
  name = 'McpCatalogue1765900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mcp_catalogue (
        name text PRIMARY KEY,
        command text NOT NULL,
        args jsonb NOT NULL DEFAULT '[]',
        env_allow jsonb NOT NULL DEFAULT '[]',
        confirmed boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    const agents: { id: string; items: StoredMcpItem[] }[] = await queryRunner.query(
      `SELECT id, mcp_servers AS items FROM agents WHERE jsonb_path_exists(mcp_servers, '$[*].command')`,
    );
    const catalogue = new Map<string, CatalogueEntry>();
    for (const agent of agents) {
      const items = agent.items.map((item) => {
        if (typeof item.command !== 'string') return item;
        const { command, args = [], ...rest } = item;
        const name = migratedName(command, args);
        const entry = catalogue.get(name) ?? { name, command, args, envAllow: new Set<string>() };
        for (const variable of item.envNames ?? []) entry.envAllow.add(variable);
        catalogue.set(name, entry);
        return { ...rest, server: name };
      });
      await queryRunner.query(`UPDATE agents SET mcp_servers = $2 WHERE id = $1`, [
        agent.id,
        JSON.stringify(items),
      ]);
    }
    for (const entry of catalogue.values()) {
      await queryRunner.query(
        `INSERT INTO mcp_catalogue (name, command, args, env_allow, confirmed) VALUES ($1, $2, $3, $4, false)`,
        [entry.name, entry.command, JSON.stringify(entry.args), JSON.stringify([...entry.envAllow].sort())],
      );
    }
  }

  /** Agents get their servers' commands back inline (confirmed or not), and the catalogue goes. */
  public async down(queryRunner: QueryRunner): Promise<void> {
    const entries: { name: string; command: string; args: string[] }[] = await queryRunner.query(
      `SELECT name, command, args FROM mcp_catalogue`,
    );
    const byName = new Map(entries.map((entry) => [entry.name, entry]));
    const agents: { id: string; items: StoredMcpItem[] }[] = await queryRunner.query(
      `SELECT id, mcp_servers AS items FROM agents WHERE jsonb_path_exists(mcp_servers, '$[*].server')`,
    );
    for (const agent of agents) {
      const items = agent.items.flatMap((item) => {
        if (typeof item.server !== 'string') return [item];
        const { server, ...rest } = item;
        const entry = byName.get(server);
        // A server removed from the catalogue has no command to give back: the item goes, as it could not start.
        return entry ? [{ ...rest, command: entry.command, args: entry.args }] : [];
      });
      await queryRunner.query(`UPDATE agents SET mcp_servers = $2 WHERE id = $1`, [
        agent.id,
        JSON.stringify(items),
      ]);
    }
    await queryRunner.query(`DROP TABLE mcp_catalogue`);
  }
}

/** The same name for the same command line, whichever agent or replica migrates it. */
function migratedName(command: string, args: string[]): string {
  return `migrated-${createHash('sha256')
    .update(JSON.stringify([command, args]))
    .digest('hex')
    .slice(0, 12)}`;
}
