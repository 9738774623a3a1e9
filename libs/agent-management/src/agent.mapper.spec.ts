import { DEFAULT_KEEP_RECENT_MESSAGES } from '@app/contracts';
import { AgentEntity, AgentVersion } from '@app/persistence';
import {
  toAgentResponse,
  toAgentVersionResponse,
  toCompactionSettings,
  toGuardrailSettings,
} from './agent.mapper';

const agent = Object.assign(new AgentEntity(), {
  id: '0190a5e4-0000-7000-8000-000000000001',
  orgId: 'o',
  name: 'helper',
  instructions: 'Be brief.',
  description: 'Answers briefly',
  model: 'builtin',
  memoryNamespace: null,
  tokenBudget: 1000,
  tokensUsed: 420,
  tools: ['clock'],
  mcpServers: [],
  compaction: { thresholdTokens: 4000, keepRecentMessages: 6 },
  approvalRequired: ['clock'],
  fallbackModels: [],
  guardrails: null,
  modelOptions: { temperature: 0.2 },
  archivedAt: null,
  createdAt: new Date('2026-11-01T00:00:00Z'),
});

describe('agent mapping', () => {
  it('answers the stored agent in the wire shape, options unset as null', () => {
    expect(toAgentResponse(agent)).toMatchObject({
      id: agent.id,
      organization_id: 'o',
      tokens_used: 420,
      compaction: { threshold_tokens: 4000, keep_recent_messages: 6 },
      temperature: 0.2,
      max_output_tokens: null,
      guardrails: null,
      archived: false,
      created_at: '2026-11-01T00:00:00.000Z',
    });
  });

  it('keeps in a version only what configures the agent, not what it spent or which row it is', () => {
    const version: AgentVersion = {
      id: '0190a5e4-0000-7000-8000-0000000000a3',
      agentId: agent.id,
      version: 3,
      createdAt: new Date('2026-11-02T00:00:00Z'),
      actor: { type: 'key', id: 'k' },
      restoredFrom: 1,
      agent: Object.assign(new AgentEntity(), agent, { tokensUsed: 99999 }),
    };
    const shown = toAgentVersionResponse(version);
    expect(shown).toMatchObject({ version: 3, restored_from: 1, created_at: '2026-11-02T00:00:00.000Z' });
    for (const field of ['id', 'organization_id', 'tokens_used', 'archived', 'created_at'])
      expect(shown.config).not.toHaveProperty(field);
    expect(shown.config).toMatchObject({ name: 'helper', instructions: 'Be brief.', tools: ['clock'] });
  });

  it('fills in the defaults of compaction and guardrails, and maps null to none', () => {
    expect(toCompactionSettings({ threshold_tokens: 2000 })).toEqual({
      thresholdTokens: 2000,
      keepRecentMessages: DEFAULT_KEEP_RECENT_MESSAGES,
    });
    expect(toCompactionSettings(null)).toBeNull();
    expect(toGuardrailSettings({ pii: 'redact' })).toEqual({
      pii: 'redact',
      blockedTerms: [],
      moderationModel: null,
    });
    expect(toGuardrailSettings(undefined)).toBeNull();
  });
});
