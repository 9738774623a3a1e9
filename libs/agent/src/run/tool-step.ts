import { traceToolCall } from '@app/observability';
import { StepToolCall } from '@app/persistence';
import { parseArguments } from '../conversation';
import { AgentTool, ToolError } from '../tools/tool';
import { describeError } from './run.types';

/**
 * One tool call of a step. A missing tool, arguments that are not a JSON object and a failing tool all become an
 * error result the model reads on its next step, never an error of the run.
 */
export async function runToolCall(
  tool: AgentTool | undefined,
  call: StepToolCall,
  context: Parameters<AgentTool['execute']>[1],
): Promise<{ output: unknown; isError: boolean }> {
  if (!tool) return { output: `tool ${call.name} is not available`, isError: true };
  const args = parseArguments(call.arguments);
  if (!args)
    return { output: `invalid arguments for tool ${call.name}: expected a JSON object`, isError: true };
  try {
    const output = await traceToolCall(call.name, call.callId, () => tool.execute(args, context));
    return { output: output ?? null, isError: false };
  } catch (error) {
    if (error instanceof ToolError) return { output: error.message, isError: true };
    return { output: `tool ${call.name} failed: ${describeError(error)}`, isError: true };
  }
}
