import { Column, Entity, Index } from 'typeorm';
import {
  BigintColumn,
  CreatedAtColumn,
  IdColumn,
  JsonbColumn,
  OrgIdColumn,
  TextColumn,
  TimestampColumn,
} from './columns';

/** An MCP server an agent may use as the tools `mcp:<name>`, as stored: its secrets only sealed. */
export interface McpServerConfig {
  name: string;
  /** stdio transport: the name of the operator's catalogue entry (McpCatalogueEntryEntity) to start. */
  server?: string;
  /** Streamable HTTP transport. */
  url?: string;
  /** Names of the server's sealed environment variables (stdio) and headers (HTTP); their values are in `sealed`. */
  envNames?: string[];
  headerNames?: string[];
  /** CredentialCipher envelope of `McpServerSecrets`; absent when the server has no secret. */
  sealed?: string;
  /** Header values of agents made before secrets were sealed: read as they are, rewritten sealed on update. */
  headers?: Record<string, string>;
}

/** The write-only part of an MCP server: environment variables of a stdio server, headers of an HTTP one. */
export interface McpServerSecrets {
  env?: Record<string, string>;
  headers?: Record<string, string>;
}

/** When a run summarizes a thread's older messages (CONTRACTS §19); null: the service default. */
export interface CompactionSettings {
  /** The history's size, in estimated tokens, past which a run summarizes it; 0: never. */
  thresholdTokens: number;
  /** The latest messages a summary leaves out, kept word for word. */
  keepRecentMessages: number;
}

/** What an agent checks the user's message and its reply for (CONTRACTS §24). */
export interface GuardrailSettings {
  pii: 'off' | 'redact' | 'block';
  blockedTerms: string[];
  /** A model asked whether a text should be blocked; null: none. */
  moderationModel: string | null;
}

interface ModelOptions {
  temperature?: number;
  maxOutputTokens?: number;
}

@Entity('agents')
@Index('agents_org_id_idx', ['orgId', 'createdAt'])
export class AgentEntity {
  @IdColumn()
  id: string;

  @OrgIdColumn()
  orgId: string;

  @TextColumn()
  name: string;

  /** Becomes the system prompt of every run. Never shown to the agent's callers (their tools show `description`). */
  @TextColumn({ default: '' })
  instructions: string;

  /** What the operator tells the agent's callers about it: its MCP tool's description. */
  @TextColumn({ default: '' })
  description: string;

  /** `builtin`, `openai:<model>` or `anthropic:<model>`. */
  @TextColumn({ default: 'builtin' })
  model: string;

  /** Models a step is tried on, in order, when the one before failed before its first delta (CONTRACTS §24). */
  @JsonbColumn({ name: 'fallback_models', default: [] })
  fallbackModels: string[];

  /** null: no guardrail. */
  @JsonbColumn({ nullable: true })
  guardrails: GuardrailSettings | null;

  @JsonbColumn({ name: 'model_options', default: {} })
  modelOptions: ModelOptions;

  /** Long-term memory namespace of threads that name none (spec 4.2 rule 2). */
  @Column({ name: 'memory_namespace', type: 'varchar', length: 128, nullable: true })
  memoryNamespace: string | null;

  /** Tokens this agent may spend in all; null means no limit. */
  @BigintColumn({ name: 'token_budget', nullable: true })
  tokenBudget: number | null;

  @BigintColumn({ name: 'tokens_used', default: 0 })
  tokensUsed: number;

  /** Tools the agent may use (`clock`, `web`, `mcp:github`, …); null means every tool the service has. */
  @JsonbColumn({ nullable: true })
  tools: string[] | null;

  @JsonbColumn({ nullable: true })
  compaction: CompactionSettings | null;

  /** Tool permissions (`web`, `mcp:<server>`) or tool names whose calls wait for a person (CONTRACTS §19). */
  @JsonbColumn({ name: 'approval_required', default: [] })
  approvalRequired: string[];

  @JsonbColumn({ name: 'mcp_servers', default: [] })
  mcpServers: McpServerConfig[];

  @TimestampColumn({ name: 'archived_at', nullable: true })
  archivedAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;
}
