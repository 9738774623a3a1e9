import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  AuditActor,
  InvalidInputError,
  McpCatalogueEntryResponse,
  RegisterMcpServerDto,
  valueErrorIssue,
} from '@app/contracts';
import { McpCatalogueRepository, recordAudit } from '@app/persistence';
import { toMcpCatalogueEntryResponse } from '../mcp-catalogue.mapper';

/**
 * Variables that decide what a process loads or runs rather than what it reads: a tenant allowed to set one
 * could run code of its choosing in the server, so no entry may allow them.
 */
const LOADER_VARIABLES =
  /^(PATH|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PERL5OPT|RUBYOPT|LD_.*|DYLD_.*)$/;

/**
 * `admin mcp:register`: adds a stdio MCP server to the operator's catalogue, or replaces the entry of that name.
 * Registering the name of an entry the migration made confirms it, so it may start.
 */
@Injectable()
export class RegisterMcpServer {
  constructor(
    private readonly db: DataSource,
    private readonly catalogue: McpCatalogueRepository,
  ) {}

  async execute(actor: AuditActor, input: RegisterMcpServerDto): Promise<McpCatalogueEntryResponse> {
    const requested = input.env_allow ?? [];
    const issues = requested.flatMap((name, index) =>
      LOADER_VARIABLES.test(name)
        ? [
            valueErrorIssue(
              ['body', 'env_allow', index],
              name,
              'a variable that changes what the server loads or runs cannot be left to tenants',
            ),
          ]
        : [],
    );
    if (issues.length > 0) throw new InvalidInputError(issues);
    const entry = await this.db.transaction(async (tx) => {
      const entry = await this.catalogue.register(
        {
          name: input.name,
          command: input.command,
          args: input.args ?? [],
          envAllow: [...new Set(requested)],
        },
        tx,
      );
      // Deployment-wide, so every organization's log shows it; the command and its arguments stay the operator's.
      await recordAudit(tx, {
        orgId: null,
        actor,
        action: 'mcp_server.registered',
        target: { type: 'mcp_server', id: entry.name },
        details: { env_allow: entry.envAllow },
      });
      return entry;
    });
    return toMcpCatalogueEntryResponse(entry);
  }
}
