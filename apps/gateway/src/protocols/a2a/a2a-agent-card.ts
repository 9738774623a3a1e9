import { AgentEntity } from '@app/persistence';
import { agentToolDescription } from '../mcp/agent-tool-names';

/** The Agent Card of a Parley agent (A2A v1.0, ProtoJSON form), whose JSON-RPC endpoint is `endpoint`. */
export function agentCard(agent: AgentEntity, endpoint: string, version: string): Record<string, unknown> {
  const tools = agent.tools ?? ['clock'];
  return {
    name: agent.name,
    description: agentToolDescription(agent),
    supportedInterfaces: [{ url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version,
    capabilities: { streaming: true, pushNotifications: false },
    securitySchemes: {
      bearer: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          description: 'A Parley service key, or an end-user token (eut_…) minted with it.',
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    // The agent's tools are what it can do beyond answering.
    skills: tools.map((tool) => ({
      id: tool,
      name: tool,
      description: `Uses the ${tool} tool when a request needs it.`,
      tags: ['tool'],
    })),
  };
}
