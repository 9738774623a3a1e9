import { AgentTool, FixedTools } from './tool';

/** The current time: the one tool every run has (CONTRACTS §6). */
const clockTool: AgentTool = {
  name: 'clock',
  permission: 'clock',
  readOnly: true,
  description: 'Returns the current date and time (ISO 8601, UTC).',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  execute: async () => ({ now: new Date().toISOString(), timezone: 'UTC' }),
};

export const clockToolSource: FixedTools = { permission: 'clock', tools: [clockTool] };
