import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The baseline: the whole schema as the 46 migrations before it left it (1763800000000-initial-schema to
 * 1766770000000-start-run-records-agent-version), squashed into one migration, as Immich did with its baseline in
 * 2025. A fresh database runs it; a database that ran that chain skips it (see `up`).
 *
 * It is a frozen snapshot like any migration: its SQL is its own, never imported from the text of record
 * (sql/database-functions.ts, sql/run-scheduling.sql.ts), so editing that text never changes history; a later change
 * of the schema is a migration of its own. It was written from `pg_dump --schema-only` of a database the old chain
 * had migrated, and a database it migrates dumps the same (columns in the same order, the same constraint and index
 * names, the function bodies byte for byte as the old chain stored them, the same grants).
 */

/**
 * The migrations the baseline replaces, in the order they ran: the one list the upgrade check of `up` and its
 * spec (test/integration/persistence/baseline-upgrade.int-spec.ts) read. Their rows stay in the migrations table
 * of a database that ran them; TypeORM runs the migrations it knows that have no row and ignores rows of
 * migrations it does not know.
 */
export const PRE_BASELINE_MIGRATIONS: readonly string[] = [
  'InitialSchema1763800000000',
  'MemoryFiles1763801700000',
  'RunCheckpoints1763810000000',
  'TemplatesAndSkills1763900000000',
  'ConversationFiles1764020000000',
  'DataSources1764200000000',
  'MessageDeltaLengths1764300000000',
  'DeploymentSecrets1765100000000',
  'RunningRepliesByOrg1765200100000',
  'RunStepDeltas1765400000000',
  'IdempotencyKeys1765500000000',
  'Webhooks1765600100000',
  'Routines1765700000000',
  'StartRunFunction1765800000000',
  'McpCatalogue1765900000000',
  'WorkConservingStart1766100000000',
  'RunStreamJournal1766100100000',
  'TokenUsagePending1766100200000',
  'ThreadCompaction1766110000000',
  'IdempotencyClaimTokens1766200000000',
  'AiSdkChats1766210000000',
  'ReplyMetadata1766300000000',
  'ToolApprovals1766400000000',
  'ReplyUsage1766500000000',
  'UserBudgets1766500100000',
  'MessageFeedback1766500200000',
  'MessageBranches1766600000000',
  'Erasures1766600100000',
  'AuditEvents1766600200000',
  'SummaryUsage1766600500000',
  'UsageDailyShards1766600600000',
  'EndUserMemory1766700000000',
  'UsageOnEveryEnding1766701000000',
  'UserBudgetTurns1766701100000',
  'ErasureByColumn1766702000000',
  'AgentDescription1766704000000',
  'RowLevelSecurity1766709000000',
  'MemoryFileWriters1766710000000',
  'ModelCalls1766730000000',
  'AgentVersions1766740000000',
  'Evals1766740100000',
  'UsageOfModelCalls1766752000000',
  'BudgetTurnParking1766760000000',
  'EvalItemStates1766761000000',
  'OneUsageDailyUpsert1766761900000',
  'StartRunRecordsAgentVersion1766770000000',
];

/** The last of them: a database that ran it holds the whole schema already. */
export const LAST_PRE_BASELINE_MIGRATION = PRE_BASELINE_MIGRATIONS[PRE_BASELINE_MIGRATIONS.length - 1];

/** The last commit before the squash: the release that still carries the 46 migrations (CHANGELOG 0.1.0). */
export const RELEASE_BEFORE_BASELINE = '086e5f042bbdc76e0b88f15275ffd91b34c6d942';

/** What `up` answers a database that stopped part way through the old chain. */
export function partialChainMessage(ran: number): string {
  return (
    `this database ran ${ran} of the ${PRE_BASELINE_MIGRATIONS.length} migrations the baseline replaced but not the ` +
    `last, ${LAST_PRE_BASELINE_MIGRATION}, and the baseline cannot finish that chain. Deploy the last Parley ` +
    `release before the squash (commit ${RELEASE_BEFORE_BASELINE}), let its \`npm run migrate\` apply the rest ` +
    `of the old migrations, then upgrade to this release again.`
  );
}

/** The tables, each with its indexes, in the order their foreign keys need. */
const TABLES = `
  CREATE TABLE organizations (
    id uuid PRIMARY KEY,
    name text NOT NULL UNIQUE,
    token_budget bigint,
    tokens_used bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
  );

  CREATE TABLE agents (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name text NOT NULL,
    instructions text NOT NULL DEFAULT '',
    model text NOT NULL DEFAULT 'builtin',
    model_options jsonb NOT NULL DEFAULT '{}',
    memory_namespace varchar(128),
    token_budget bigint,
    tokens_used bigint NOT NULL DEFAULT 0,
    tools jsonb,
    mcp_servers jsonb NOT NULL DEFAULT '[]',
    archived_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    compaction jsonb,
    approval_required jsonb NOT NULL DEFAULT '[]',
    description text NOT NULL DEFAULT '',
    fallback_models jsonb NOT NULL DEFAULT '[]',
    guardrails jsonb
  );
  CREATE INDEX agents_org_id_idx ON agents (org_id, created_at);

  CREATE TABLE agent_versions (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL,
    agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    version integer NOT NULL,
    config jsonb NOT NULL,
    actor_type text NOT NULL,
    actor_id text NOT NULL,
    restored_from integer,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT agent_versions_agent_version_key UNIQUE (agent_id, version)
  );

  CREATE TABLE threads (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id text,
    agent_id uuid NOT NULL REFERENCES agents(id),
    name text NOT NULL,
    project_id text,
    memory_namespace varchar(128),
    starred boolean NOT NULL DEFAULT false,
    inception text NOT NULL DEFAULT 'conversational' CHECK (inception IN ('conversational', 'routine', 'eval')),
    archived_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    compaction_requested_at timestamptz,
    active_leaf_id uuid
  );
  CREATE INDEX threads_age_idx ON threads (org_id, created_at);
  CREATE INDEX threads_listing_idx ON threads (org_id, user_id, created_at DESC, id DESC) WHERE archived_at IS NULL;
  CREATE INDEX threads_owner_idx ON threads (org_id, user_id);

  CREATE TABLE ai_sdk_chats (
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    chat_id text NOT NULL,
    thread_id uuid NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ai_sdk_chats_pkey PRIMARY KEY (org_id, user_id, chat_id)
  );
  CREATE INDEX ai_sdk_chats_thread_idx ON ai_sdk_chats (thread_id);

  CREATE TABLE api_keys (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name text NOT NULL DEFAULT '',
    key_hash char(64) NOT NULL UNIQUE,
    kind text NOT NULL CHECK (kind IN ('sk-svc', 'legacy')),
    revoked_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX api_keys_org_id_idx ON api_keys (org_id);

  CREATE TABLE audit_events (
    id uuid PRIMARY KEY,
    org_id uuid,
    at timestamptz NOT NULL DEFAULT now(),
    actor_type text NOT NULL CHECK (actor_type IN ('key', 'admin')),
    actor_id text NOT NULL,
    action text NOT NULL,
    target_type text NOT NULL,
    target_id text NOT NULL,
    details jsonb NOT NULL DEFAULT '{}'
  );
  CREATE INDEX audit_events_listing_idx ON audit_events (org_id, id DESC);

  CREATE TABLE connections (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('googledrive', 'sharepoint', 'draganddrop')),
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'expired', 'error')),
    status_reason text,
    inoperative boolean NOT NULL DEFAULT false,
    created_by text NOT NULL,
    credentials_encrypted text,
    expires_at timestamptz,
    checked_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
  );
  CREATE INDEX connections_org_idx ON connections (org_id, created_at DESC);

  CREATE TABLE messages (
    id uuid PRIMARY KEY,
    thread_id uuid NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    position integer NOT NULL,
    role text NOT NULL CHECK (role IN ('user', 'assistant')),
    content text NOT NULL DEFAULT '',
    error_code text,
    questions jsonb,
    status text NOT NULL CHECK (status IN ('pending', 'running', 'requires_action', 'success', 'error', 'cancelled')),
    live boolean NOT NULL,
    events jsonb,
    structured_output jsonb,
    agent_id uuid REFERENCES agents(id),
    reply_to_id uuid REFERENCES messages(id),
    file_ids jsonb NOT NULL DEFAULT '[]',
    source_ids jsonb,
    document_ids jsonb,
    disabled_tools jsonb,
    max_steps integer,
    usage_tokens integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz,
    delta_lengths integer[],
    metadata jsonb,
    input_tokens integer NOT NULL DEFAULT 0,
    output_tokens integer NOT NULL DEFAULT 0,
    tool_calls integer NOT NULL DEFAULT 0,
    model text,
    parent_id uuid,
    cached_input_tokens integer NOT NULL DEFAULT 0,
    agent_version integer,
    budget_turn_parked_at timestamptz,
    CONSTRAINT messages_thread_position_key UNIQUE (thread_id, position)
  );
  CREATE INDEX messages_budget_turn_parked_idx ON messages (org_id, budget_turn_parked_at)
    WHERE live AND budget_turn_parked_at IS NOT NULL;
  CREATE INDEX messages_live_idx ON messages (thread_id, position) WHERE live;
  CREATE INDEX messages_live_status_idx ON messages (status, updated_at) WHERE live;
  CREATE INDEX messages_org_live_idx ON messages (org_id, status, created_at) WHERE live;
  CREATE INDEX messages_reply_to_idx ON messages (reply_to_id) WHERE reply_to_id IS NOT NULL;

  CREATE TABLE conversation_files (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id text,
    name text NOT NULL,
    mimetype text NOT NULL,
    size bigint NOT NULL DEFAULT 0,
    storage_key text NOT NULL UNIQUE,
    origin text NOT NULL CHECK (origin IN ('user', 'agent')),
    status text NOT NULL CHECK (status IN ('pending', 'uploaded')),
    message_id uuid REFERENCES messages(id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    uploaded_at timestamptz
  );
  CREATE INDEX conversation_files_message_idx ON conversation_files (message_id) WHERE message_id IS NOT NULL;
  CREATE INDEX conversation_files_owner_idx ON conversation_files (org_id, user_id);

  CREATE TABLE deployment_secrets (
    name text PRIMARY KEY,
    value text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );

  CREATE TABLE sources (
    id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    pid text NOT NULL UNIQUE,
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    connection_id uuid NOT NULL REFERENCES connections(id),
    name text NOT NULL,
    scope text NOT NULL CHECK (scope IN ('organization', 'private')),
    created_by text NOT NULL,
    store text NOT NULL CHECK (store IN ('googledrive', 'sharepoint', 'draganddrop')),
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'syncing', 'synced', 'error')),
    status_reason text,
    config jsonb NOT NULL DEFAULT '{}',
    language text NOT NULL DEFAULT 'english',
    size bigint NOT NULL DEFAULT 0,
    embedded_size bigint NOT NULL DEFAULT 0,
    documents_synced integer NOT NULL DEFAULT 0,
    documents_failed integer NOT NULL DEFAULT 0,
    oversized_documents integer NOT NULL DEFAULT 0,
    documents_embedded integer NOT NULL DEFAULT 0,
    sync_state jsonb,
    last_synced_at timestamptz,
    archived_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX sources_connection_idx ON sources (connection_id);
  CREATE INDEX sources_org_idx ON sources (org_id, created_at DESC, id DESC);

  CREATE TABLE documents (
    id uuid PRIMARY KEY,
    source_id integer NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    org_id uuid NOT NULL,
    external_id text NOT NULL,
    name text NOT NULL,
    mime_type text NOT NULL,
    size bigint NOT NULL DEFAULT 0,
    wanted_version text NOT NULL,
    version text,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'indexed', 'failed', 'oversized')),
    error text,
    embedded_size bigint NOT NULL DEFAULT 0,
    embedded boolean NOT NULL DEFAULT false,
    passage_count integer NOT NULL DEFAULT 0,
    seen_generation integer NOT NULL DEFAULT 0,
    added_by text,
    synced_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT documents_source_id_external_id_key UNIQUE (source_id, external_id)
  );
  CREATE INDEX documents_to_fetch_idx ON documents (source_id) WHERE version IS DISTINCT FROM wanted_version;

  CREATE TABLE end_user_memory_namespaces (
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    namespace varchar(128) NOT NULL,
    CONSTRAINT end_user_memory_namespaces_pkey PRIMARY KEY (org_id, user_id, namespace)
  );

  CREATE TABLE erasures (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_hash text NOT NULL,
    user_id text,
    status text NOT NULL CHECK (status IN ('running', 'done')),
    requested_by jsonb NOT NULL,
    counts jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz,
    CONSTRAINT erasures_check CHECK ((status = 'running') = (user_id IS NOT NULL))
  );
  CREATE UNIQUE INDEX erasures_running_uq ON erasures (org_id, user_hash) WHERE status = 'running';

  CREATE TABLE eval_datasets (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL,
    name text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX eval_datasets_org_idx ON eval_datasets (org_id, id DESC);

  CREATE TABLE eval_items (
    dataset_id uuid NOT NULL REFERENCES eval_datasets(id) ON DELETE CASCADE,
    position integer NOT NULL,
    org_id uuid NOT NULL,
    input jsonb NOT NULL,
    expected jsonb,
    reference text,
    source_user_hash text,
    CONSTRAINT eval_items_pkey PRIMARY KEY (dataset_id, position)
  );

  CREATE TABLE eval_runs (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL,
    dataset_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    agent_version integer NOT NULL,
    judge_model text,
    status text NOT NULL DEFAULT 'running',
    created_at timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz
  );
  CREATE INDEX eval_runs_agent_idx ON eval_runs (org_id, agent_id, id DESC);
  CREATE INDEX eval_runs_running_idx ON eval_runs (id) WHERE status = 'running';

  CREATE TABLE eval_run_items (
    run_id uuid NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
    position integer NOT NULL,
    org_id uuid NOT NULL,
    input jsonb NOT NULL,
    expected jsonb,
    reference text,
    source_user_hash text,
    thread_id uuid,
    reply_id uuid,
    output text,
    scores jsonb,
    passed boolean,
    input_tokens integer NOT NULL DEFAULT 0,
    output_tokens integer NOT NULL DEFAULT 0,
    state text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'answering', 'judging', 'scored')),
    judge_claim uuid,
    judge_claimed_at timestamptz,
    CONSTRAINT eval_run_items_pkey PRIMARY KEY (run_id, position)
  );

  CREATE TABLE idempotency_keys (
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    key varchar(255) NOT NULL,
    fingerprint char(64) NOT NULL,
    status_code integer,
    response_body json,
    created_at timestamptz NOT NULL DEFAULT now(),
    claim_token uuid,
    user_id text NOT NULL,
    thread_id uuid REFERENCES threads(id) ON DELETE CASCADE,
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (org_id, user_id, key)
  );
  CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
  CREATE INDEX idempotency_keys_thread_idx ON idempotency_keys (thread_id) WHERE thread_id IS NOT NULL;

  CREATE TABLE mcp_catalogue (
    name text PRIMARY KEY,
    command text NOT NULL,
    args jsonb NOT NULL DEFAULT '[]',
    env_allow jsonb NOT NULL DEFAULT '[]',
    confirmed boolean NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  );

  CREATE TABLE memory_files (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    namespace varchar(128) NOT NULL,
    path text NOT NULL,
    purpose text NOT NULL,
    content text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    version text NOT NULL,
    written_by_user_ids text[] NOT NULL DEFAULT '{}',
    CONSTRAINT memory_files_org_namespace_path_key UNIQUE (org_id, namespace, path)
  );
  CREATE INDEX memory_files_writers_idx ON memory_files USING gin (written_by_user_ids)
    WHERE written_by_user_ids <> '{}';

  CREATE TABLE message_feedback (
    message_id uuid PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
    org_id uuid NOT NULL,
    thread_id uuid NOT NULL,
    agent_id uuid,
    user_id text,
    rating smallint NOT NULL CHECK (rating IN (1, -1)),
    comment text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX message_feedback_listing_idx ON message_feedback (org_id, message_id DESC);

  CREATE TABLE passages (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    source_id integer NOT NULL,
    position integer NOT NULL,
    start_offset integer NOT NULL,
    end_offset integer NOT NULL,
    text text NOT NULL,
    language text NOT NULL DEFAULT 'english',
    tsv tsvector NOT NULL,
    embedding real[]
  );
  CREATE INDEX passages_document_idx ON passages (document_id, position);
  CREATE INDEX passages_source_idx ON passages (source_id);
  CREATE INDEX passages_tsv_idx ON passages USING gin (tsv);

  CREATE TABLE query_templates (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    created_by text NOT NULL,
    updated_by text NOT NULL,
    name text NOT NULL,
    description text NOT NULL DEFAULT '',
    content text NOT NULL,
    metadata jsonb NOT NULL DEFAULT '{}',
    icon_uri text NOT NULL DEFAULT '',
    icon_color text NOT NULL DEFAULT '',
    background_color text NOT NULL DEFAULT '',
    scope text NOT NULL DEFAULT 'private' CHECK (scope IN ('private', 'organization')),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX query_templates_listing_idx ON query_templates (org_id, created_at DESC, id DESC);

  CREATE TABLE retention_settings (
    org_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
    thread_days integer NOT NULL CHECK (thread_days > 0),
    updated_at timestamptz NOT NULL DEFAULT now()
  );

  CREATE TABLE routines (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    key_id uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    name text NOT NULL,
    agent_id uuid NOT NULL,
    schedule text NOT NULL,
    timezone text NOT NULL,
    message jsonb NOT NULL,
    options jsonb NOT NULL,
    active boolean NOT NULL,
    inactive_reason text,
    next_run_at timestamptz,
    last_run_at timestamptz,
    last_thread_id uuid,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX routines_owner_idx ON routines (org_id, user_id, created_at);

  CREATE TABLE run_steps (
    message_id uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    step integer NOT NULL CHECK (step >= 1),
    text text NOT NULL DEFAULT '',
    tool_calls jsonb NOT NULL DEFAULT '[]',
    questions jsonb,
    structured_output jsonb,
    usage_tokens integer NOT NULL DEFAULT 0,
    content_length integer NOT NULL DEFAULT 0,
    started_at timestamptz NOT NULL,
    completed_at timestamptz NOT NULL DEFAULT now(),
    delta_lengths integer[],
    streamed_text text,
    output_tokens integer NOT NULL DEFAULT 0,
    model text,
    cached_input_tokens integer NOT NULL DEFAULT 0,
    CONSTRAINT run_steps_pkey PRIMARY KEY (message_id, step)
  );

  CREATE TABLE run_stream_journal (
    message_id uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    first_seq integer NOT NULL,
    lines text NOT NULL,
    CONSTRAINT run_stream_journal_pkey PRIMARY KEY (message_id, first_seq)
  );

  CREATE TABLE share_links (
    id uuid PRIMARY KEY,
    file_id uuid NOT NULL REFERENCES conversation_files(id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz,
    password_hash text,
    revoked_at timestamptz,
    access_count bigint NOT NULL DEFAULT 0,
    last_accessed_at timestamptz
  );
  CREATE INDEX share_links_file_idx ON share_links (file_id, created_at);

  CREATE TABLE skills (
    id text PRIMARY KEY,
    org_id uuid REFERENCES organizations(id) ON DELETE CASCADE,
    source text NOT NULL CHECK (source IN ('parley', 'custom')),
    name text NOT NULL,
    display_name text NOT NULL,
    frontmatter jsonb NOT NULL,
    body text NOT NULL,
    document text NOT NULL,
    active boolean NOT NULL DEFAULT true,
    scope text CHECK (scope IN ('organization', 'private')),
    created_by text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT skills_check CHECK ((source = 'parley') = (org_id IS NULL))
  );
  CREATE UNIQUE INDEX skills_custom_name_idx ON skills (org_id, name) WHERE org_id IS NOT NULL;
  CREATE UNIQUE INDEX skills_platform_name_idx ON skills (name) WHERE org_id IS NULL;

  CREATE TABLE skill_settings (
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    skill_id text NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
    active boolean,
    scope text CHECK (scope IN ('organization', 'private')),
    set_by text,
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT skill_settings_pkey PRIMARY KEY (org_id, skill_id)
  );

  CREATE TABLE thread_summaries (
    id uuid PRIMARY KEY,
    thread_id uuid NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    message_id uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    through_position integer NOT NULL,
    summarized_messages integer NOT NULL,
    summary text NOT NULL,
    summary_tokens integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    through_message_id uuid,
    input_tokens integer NOT NULL DEFAULT 0,
    output_tokens integer NOT NULL DEFAULT 0
  );
  CREATE INDEX thread_summaries_message_idx ON thread_summaries (message_id);
  CREATE INDEX thread_summaries_thread_idx ON thread_summaries (thread_id, through_position DESC);

  CREATE TABLE token_usage_pending (
    message_id uuid PRIMARY KEY,
    agent_id uuid NOT NULL,
    org_id uuid NOT NULL,
    tokens integer NOT NULL
  );
  CREATE INDEX token_usage_pending_agent_idx ON token_usage_pending (agent_id);
  CREATE INDEX token_usage_pending_org_idx ON token_usage_pending (org_id);

  CREATE TABLE tool_approvals (
    message_id uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    step integer NOT NULL,
    call_id text NOT NULL,
    call_index integer NOT NULL,
    name text NOT NULL,
    arguments jsonb NOT NULL,
    decision text CHECK (decision IN ('approve', 'deny')),
    reason text,
    requested_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    decided_at timestamptz,
    CONSTRAINT tool_approvals_pkey PRIMARY KEY (message_id, step, call_id)
  );
  CREATE INDEX tool_approvals_undecided_idx ON tool_approvals (expires_at) WHERE decision IS NULL;

  CREATE TABLE tool_calls (
    idempotency_key text PRIMARY KEY,
    message_id uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    step integer NOT NULL,
    call_id text NOT NULL,
    name text NOT NULL,
    arguments jsonb NOT NULL,
    output jsonb,
    is_error boolean NOT NULL,
    duration_ms integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX tool_calls_message_id_idx ON tool_calls (message_id, step);

  CREATE TABLE usage_daily (
    org_id uuid NOT NULL,
    day date NOT NULL,
    user_id text,
    agent_id uuid,
    model text,
    replies bigint NOT NULL,
    input_tokens bigint NOT NULL,
    output_tokens bigint NOT NULL,
    tool_calls bigint NOT NULL,
    shard smallint NOT NULL DEFAULT 0,
    cached_input_tokens bigint NOT NULL DEFAULT 0
  );
  CREATE UNIQUE INDEX usage_daily_key ON usage_daily (org_id, day, user_id, agent_id, model, shard) NULLS NOT DISTINCT;
  CREATE INDEX usage_daily_user_idx ON usage_daily (org_id, user_id, day);

  CREATE TABLE user_budgets (
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    period text NOT NULL CHECK (period IN ('day', 'month')),
    max_tokens bigint NOT NULL CHECK (max_tokens >= 0),
    updated_at timestamptz NOT NULL DEFAULT now(),
    turn_message_id uuid,
    CONSTRAINT user_budgets_pkey PRIMARY KEY (org_id, user_id)
  );
  CREATE INDEX user_budgets_turn_idx ON user_budgets (turn_message_id) WHERE turn_message_id IS NOT NULL;

  CREATE TABLE webhooks (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    url text NOT NULL,
    events text[] NOT NULL,
    description text,
    active boolean NOT NULL DEFAULT true,
    secret_encrypted text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX webhooks_org_idx ON webhooks (org_id, created_at);

  CREATE TABLE webhook_deliveries (
    id uuid PRIMARY KEY,
    webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id uuid NOT NULL,
    type text NOT NULL,
    payload jsonb NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    leased_until timestamptz,
    delivered_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    thread_id text,
    end_user_ids text[],
    CONSTRAINT webhook_deliveries_event_uq UNIQUE (webhook_id, event_id)
  );
  CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
  CREATE INDEX webhook_deliveries_end_users_idx ON webhook_deliveries USING gin (end_user_ids);
  CREATE INDEX webhook_deliveries_settled_idx ON webhook_deliveries (created_at) WHERE next_attempt_at IS NULL;
  CREATE INDEX webhook_deliveries_thread_idx ON webhook_deliveries (thread_id) WHERE thread_id IS NOT NULL;

  CREATE TABLE webhook_attempts (
    id uuid PRIMARY KEY,
    delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
    webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id uuid NOT NULL,
    type text NOT NULL,
    attempt integer NOT NULL,
    status_code integer,
    error text,
    next_attempt_at timestamptz,
    delivered_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT webhook_attempts_attempt_uq UNIQUE (delivery_id, attempt)
  );
  CREATE INDEX webhook_attempts_webhook_idx ON webhook_attempts (webhook_id, created_at);
`;

/**
 * The database functions (CONTRACTS §21 and the text of record in sql/): the run scheduling rules (a reply's block,
 * its start, the user budget turn), the usage counted as a reply ends, the subjects of a webhook delivery and the
 * append-only audit log. Their bodies are kept exactly as the old chain stored them.
 */
const FUNCTIONS = `
-- Whether a reply must wait: an earlier live reply of its thread, its organization's cap of running replies, or
-- its end user's budget turn held by another reply.
CREATE FUNCTION parley_reply_blocked(reply uuid, thread_archived boolean, org_cap integer)
  RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT NOT thread_archived AND (EXISTS (SELECT 1 FROM messages e WHERE e.thread_id = r.thread_id AND e.live AND e.position < r.position) OR (org_cap > 0 AND r.status = 'pending' AND (SELECT count(*) FROM messages m WHERE m.org_id = r.org_id AND m.live AND m.status = 'running') >= org_cap)
    OR (r.budget_turn_parked_at IS NOT NULL AND EXISTS (SELECT 1 FROM threads t
    JOIN user_budgets b ON b.org_id = t.org_id AND b.user_id = t.user_id JOIN messages h ON h.id = b.turn_message_id
    WHERE t.id = r.thread_id AND h.id <> r.id AND (h.live AND (h.status = 'running' OR (h.status = 'pending' AND h.budget_turn_parked_at IS NOT NULL))))))
  FROM messages r WHERE r.id = reply
$$;

-- A run's start in one statement: the organization's advisory lock, the block check, the reply marked running.
CREATE FUNCTION parley_start_run(reply uuid, org uuid, thread_archived boolean, org_cap integer,
    run_version integer DEFAULT NULL)
  RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  blocked boolean;
BEGIN
  IF org_cap > 0 THEN
    PERFORM pg_advisory_xact_lock(hashtext('agent-run-org'), hashtext(org::text));
  END IF;
  blocked := parley_reply_blocked(reply, thread_archived, org_cap);
  IF blocked IS FALSE THEN
    UPDATE messages SET status = 'running', budget_turn_parked_at = NULL, updated_at = now(),
        agent_version = COALESCE(agent_version, run_version)
      WHERE id = reply AND live;
  END IF;
  RETURN COALESCE(blocked, false);
END
$$;

-- The end user's budget turn for a reply, when no other live reply holds it.
CREATE FUNCTION parley_take_user_budget_turn(reply uuid, thread uuid)
  RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  budget record;
BEGIN
  SELECT b.org_id, b.user_id, b.turn_message_id INTO budget
    FROM threads t JOIN user_budgets b ON b.org_id = t.org_id AND b.user_id = t.user_id
    WHERE t.id = thread FOR UPDATE OF b;
  IF NOT FOUND THEN
    RETURN true;
  END IF;
  IF budget.turn_message_id IS DISTINCT FROM reply AND EXISTS (
      SELECT 1 FROM messages m WHERE m.id = budget.turn_message_id AND (m.live AND (m.status = 'running' OR (m.status = 'pending' AND m.budget_turn_parked_at IS NOT NULL)))) THEN
    RETURN false;
  END IF;
  UPDATE user_budgets SET turn_message_id = reply
    WHERE org_id = budget.org_id AND user_id = budget.user_id;
  RETURN true;
END
$$;

-- A running reply that did not get the turn goes back to pending, parked with what it streamed.
CREATE FUNCTION parley_park_for_user_budget_turn(reply uuid, thread uuid, streamed_content text,
    streamed_events jsonb, streamed_delta_lengths integer[])
  RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF parley_take_user_budget_turn(reply, thread) THEN
    RETURN 'taken';
  END IF;
  UPDATE messages SET status = 'pending', budget_turn_parked_at = now(), content = streamed_content,
      events = streamed_events, delta_lengths = streamed_delta_lengths, updated_at = now()
    WHERE id = reply AND live AND status = 'running';
  RETURN CASE WHEN FOUND THEN 'parked' ELSE 'ended' END;
END
$$;

-- The turn of an ended reply passes to the end user's longest-parked reply, answered to be started.
CREATE FUNCTION parley_give_back_user_budget_turn(reply uuid)
  RETURNS TABLE(next_reply_id uuid, next_thread_id uuid) LANGUAGE plpgsql AS $$
DECLARE
  budget record;
BEGIN
  UPDATE user_budgets SET turn_message_id = NULL WHERE turn_message_id = reply RETURNING org_id, user_id INTO budget;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT parked.id, parked.thread_id INTO next_reply_id, next_thread_id
    FROM (SELECT m.id, m.thread_id
  FROM messages m JOIN threads t ON t.id = m.thread_id
  WHERE m.org_id = budget.org_id AND t.user_id = budget.user_id AND m.live AND m.status = 'pending'
    AND m.budget_turn_parked_at IS NOT NULL
  ORDER BY m.budget_turn_parked_at, m.id LIMIT 1) parked;
  IF FOUND THEN
    UPDATE user_budgets SET turn_message_id = next_reply_id
      WHERE org_id = budget.org_id AND user_id = budget.user_id;
    RETURN NEXT;
  END IF;
END
$$;

-- The one upsert of a usage_daily row.
CREATE FUNCTION parley_add_usage_daily(add_org uuid, add_day date, add_user text, add_agent uuid,
    add_model text, add_shard integer, add_replies bigint, add_input bigint, add_output bigint,
    add_tool_calls bigint, add_cached bigint)
  RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO usage_daily AS d (org_id, day, user_id, agent_id, model, shard, replies, input_tokens,
            output_tokens, tool_calls, cached_input_tokens)
          VALUES (add_org, add_day, add_user, add_agent, add_model, add_shard, add_replies, add_input, add_output,
            add_tool_calls, add_cached)
          ON CONFLICT (org_id, day, user_id, agent_id, model, shard) DO UPDATE SET
            replies = d.replies + EXCLUDED.replies,
            input_tokens = d.input_tokens + EXCLUDED.input_tokens,
            output_tokens = d.output_tokens + EXCLUDED.output_tokens,
            tool_calls = d.tool_calls + EXCLUDED.tool_calls,
            cached_input_tokens = d.cached_input_tokens + EXCLUDED.cached_input_tokens;
      END $$;

-- Tokens spent, counted for the agent's and organization's counters and usage_daily.
CREATE FUNCTION parley_count_usage(spend_id uuid, spend_org uuid, spend_day date, spend_user text,
    spend_agent uuid, spend_model text, spend_replies integer, spend_input integer, spend_output integer,
    spend_tool_calls integer, spend_cached integer)
  RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        IF spend_input + spend_output > 0 AND spend_agent IS NOT NULL THEN
          INSERT INTO token_usage_pending (message_id, agent_id, org_id, tokens)
            VALUES (spend_id, spend_agent, spend_org, spend_input + spend_output);
        END IF;
        -- One of 8 shards picked by the spending's id, so the ends of one end user's many replies do not queue on
        -- one row's lock.
        PERFORM parley_add_usage_daily(spend_org, spend_day, spend_user, spend_agent, spend_model,
          abs(hashtext(spend_id::text)) % 8, spend_replies, spend_input, spend_output, spend_tool_calls, spend_cached);
      END $$;

-- A reply's usage and model, counted as it stops being live.
CREATE FUNCTION parley_count_ended_reply()
  RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        spent record;
      BEGIN
        SELECT COALESCE(sum(s.tokens), 0)::int AS tokens, COALESCE(sum(s.written), 0)::int AS written,
            COALESCE(sum(s.calls), 0)::int AS calls, COALESCE(sum(s.cached), 0)::int AS cached
          INTO spent
          FROM (SELECT usage_tokens AS tokens, output_tokens AS written, jsonb_array_length(tool_calls) AS calls,
                  cached_input_tokens AS cached
                  FROM run_steps WHERE message_id = NEW.id
                UNION ALL
                SELECT input_tokens + output_tokens, output_tokens, 0, 0 FROM thread_summaries
                  WHERE message_id = NEW.id) s;
        NEW.usage_tokens := spent.tokens;
        NEW.input_tokens := spent.tokens - spent.written;
        NEW.output_tokens := spent.written;
        NEW.tool_calls := spent.calls;
        NEW.cached_input_tokens := spent.cached;
        -- The model that answered the reply's last step: a fallback model when the agent's failed (§24).
        NEW.model := COALESCE(
          (SELECT s.model FROM run_steps s WHERE s.message_id = NEW.id ORDER BY s.step DESC LIMIT 1),
          (SELECT a.model FROM agents a WHERE a.id = NEW.agent_id));
        NEW.completed_at := COALESCE(NEW.completed_at, now());
        PERFORM parley_count_usage(NEW.id, NEW.org_id, (NEW.completed_at AT TIME ZONE 'UTC')::date,
          (SELECT t.user_id FROM threads t WHERE t.id = NEW.thread_id), NEW.agent_id, NEW.model, 1,
          NEW.input_tokens, NEW.output_tokens, NEW.tool_calls, spent.cached);
        RETURN NEW;
      END $$;

-- The thread and end users a webhook delivery names.
CREATE FUNCTION parley_webhook_delivery_subjects()
  RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.thread_id := NEW.payload #>> '{data,thread_id}';
        NEW.end_user_ids := array_remove(ARRAY[
          NEW.payload #>> '{data,user_id}',
          NEW.payload #>> '{data,created_by}',
          NEW.payload #>> '{data,connection,created_by}'], NULL);
        RETURN NEW;
      END $$;

-- Refuses every change to audit_events but an insert.
CREATE FUNCTION audit_events_append_only()
  RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $$;
`;

const TRIGGERS = `
  -- audit_events takes inserts only.
  CREATE TRIGGER audit_events_no_change
    BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
  CREATE TRIGGER audit_events_no_truncate
    BEFORE TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
  -- A reply's usage is counted as it stops being live, whichever statement ends it.
  CREATE TRIGGER messages_count_ended_reply
    BEFORE UPDATE OF live ON messages
    FOR EACH ROW WHEN (OLD.live AND NOT NEW.live) EXECUTE FUNCTION parley_count_ended_reply();
  -- A delivery names its thread and end users, for erasure by column.
  CREATE TRIGGER webhook_delivery_subjects
    BEFORE INSERT OR UPDATE OF payload ON webhook_deliveries
    FOR EACH ROW EXECUTE FUNCTION parley_webhook_delivery_subjects();
`;

/**
 * The second wall between organizations (CONTRACTS §21): a transaction that works for one organization takes the
 * role `parley_tenant` and names the organization in the setting `parley.org_id`, both local to the transaction;
 * every table that holds an organization's data then shows and accepts only that organization's rows, and nothing
 * when the setting is missing. Work that crosses organizations by design (the worker's runs and sweeps, the admin
 * CLI, migrations) runs as the table owner, which these policies do not restrict.
 */
const SCOPE_ORG = `NULLIF(current_setting('parley.org_id', true), '')::uuid`;

/** Tables with their own `org_id`. */
const BY_ORG = [
  'agent_versions',
  'agents',
  'ai_sdk_chats',
  'api_keys',
  'audit_events',
  'connections',
  'conversation_files',
  'documents',
  'end_user_memory_namespaces',
  'erasures',
  'eval_datasets',
  'eval_items',
  'eval_run_items',
  'eval_runs',
  'idempotency_keys',
  'memory_files',
  'message_feedback',
  'messages',
  'query_templates',
  'retention_settings',
  'routines',
  'skill_settings',
  'sources',
  'threads',
  'token_usage_pending',
  'usage_daily',
  'user_budgets',
  'webhooks',
];

/** Tables whose rows belong to a parent row's organization: visible exactly when the parent row is. */
const BY_PARENT: { table: string; column: string; parent: string }[] = [
  { table: 'run_steps', column: 'message_id', parent: 'messages' },
  { table: 'run_stream_journal', column: 'message_id', parent: 'messages' },
  { table: 'tool_approvals', column: 'message_id', parent: 'messages' },
  { table: 'tool_calls', column: 'message_id', parent: 'messages' },
  { table: 'thread_summaries', column: 'thread_id', parent: 'threads' },
  { table: 'share_links', column: 'file_id', parent: 'conversation_files' },
  { table: 'passages', column: 'document_id', parent: 'documents' },
  { table: 'webhook_deliveries', column: 'webhook_id', parent: 'webhooks' },
  { table: 'webhook_attempts', column: 'webhook_id', parent: 'webhooks' },
];

const ROW_LEVEL_SECURITY = [
  ...BY_ORG.map(
    (table) => `CREATE POLICY tenant_scope ON ${table} TO parley_tenant USING (org_id = ${SCOPE_ORG})`,
  ),
  `CREATE POLICY tenant_scope ON organizations TO parley_tenant USING (id = ${SCOPE_ORG})`,
  // Platform skills (no organization) are every organization's to read, no organization's to change.
  `CREATE POLICY tenant_scope ON skills TO parley_tenant
     USING (org_id IS NULL OR org_id = ${SCOPE_ORG}) WITH CHECK (org_id = ${SCOPE_ORG})`,
  // The parent's own policy applies inside this subquery: the child is visible when its parent is.
  ...BY_PARENT.map(
    ({ table, column, parent }) =>
      `CREATE POLICY tenant_scope ON ${table} TO parley_tenant
         USING (EXISTS (SELECT 1 FROM ${parent} p WHERE p.id = ${table}.${column}))`,
  ),
  ...[...BY_ORG, 'organizations', 'skills', ...BY_PARENT.map((item) => item.table)].map(
    (table) => `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`,
  ),
];

/**
 * The tenant role and what it may touch. A role is the cluster's, not the database's: several databases (tests,
 * deployments) share it. The connecting role may take it (a superuser may anyway; granting to oneself is refused).
 * The grants cover the migrations table (TypeORM creates it before the first migration) and every sequence, but
 * not the deployment's own secrets, nobody's tenant data; tables of later migrations get the default privileges.
 * Databases of one cluster migrating at once (test suites, deployments side by side) race to create the role: the
 * loser finds it made.
 */
const TENANT_ROLE = `
  DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'parley_tenant') THEN
      CREATE ROLE parley_tenant NOLOGIN NOINHERIT;
    END IF;
  EXCEPTION WHEN unique_violation OR duplicate_object THEN
    NULL; -- another database's migration created it meanwhile
  END $$;
  DO $$ BEGIN
    IF NOT pg_has_role(current_user, 'parley_tenant', 'MEMBER') THEN
      EXECUTE format('GRANT parley_tenant TO %I', current_user);
    END IF;
  EXCEPTION WHEN unique_violation THEN
    NULL; -- another database's migration granted it meanwhile
  END $$;
`;

const GRANTS = `
  GRANT USAGE ON SCHEMA public TO parley_tenant;
  GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO parley_tenant;
  GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO parley_tenant;
  REVOKE ALL ON deployment_secrets, schema_migrations FROM parley_tenant;
  ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO parley_tenant;
`;

export class Baseline1766800000000 implements MigrationInterface {
  name = 'Baseline1766800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // A database that ran the old chain: it holds this schema already, so nothing runs and TypeORM records the
    // baseline as run. One that stopped part way cannot be finished from here.
    const ran = await this.preBaselineMigrationsRun(queryRunner);
    if (ran.includes(LAST_PRE_BASELINE_MIGRATION)) return;
    if (ran.length > 0) throw new Error(partialChainMessage(ran.length));

    await queryRunner.query(TABLES);
    await queryRunner.query(FUNCTIONS);
    await queryRunner.query(TRIGGERS);
    await queryRunner.query(TENANT_ROLE);
    for (const statement of ROW_LEVEL_SECURITY) await queryRunner.query(statement);
    await queryRunner.query(GRANTS);
    // pgvector, when the server has it, so passage searches can cast the real[] embeddings to `vector`; nothing
    // else depends on it.
    const [vector] = (await queryRunner.query(
      `SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`,
    )) as unknown[];
    if (vector) await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS vector`);
  }

  /**
   * A baseline has nothing before it to go back to: undoing it would drop every table and all their rows in one
   * step (where reverting the old chain's last migration undid one change), so it refuses. A database is rebuilt
   * by dropping it and migrating afresh.
   */
  public async down(): Promise<void> {
    throw new Error(
      'the baseline migration cannot be undone: it created the whole schema. Drop the database and migrate afresh ' +
        'to rebuild it, or restore a backup.',
    );
  }

  /** The names of the old chain's migrations recorded in this database's migrations table. */
  private async preBaselineMigrationsRun(queryRunner: QueryRunner): Promise<string[]> {
    const table = queryRunner.connection.options.migrationsTableName ?? 'migrations';
    const rows: { name: string }[] = await queryRunner.query(
      `SELECT name FROM ${queryRunner.connection.driver.escape(table)} WHERE name = ANY($1)`,
      [[...PRE_BASELINE_MIGRATIONS]],
    );
    return rows.map((row) => row.name);
  }
}
