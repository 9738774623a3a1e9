import { Injectable } from '@nestjs/common';
import { AgentTool, FixedTools, ToolCallContext, ToolError } from '@app/agent';
import { DocumentSearch } from '../search/document-search';

const DEFAULT_TOP_K = 5;
const MAX_TOP_K = 20;
const MAX_QUERY_CHARS = 2000;

/**
 * `company_documents` (CONTRACTS §9): hybrid search over the passages of the sources the run's end user may
 * see (the organization's and their private ones), narrowed to the message's source_ids / document_ids.
 */
@Injectable()
export class CompanyDocumentsToolSource implements FixedTools {
  readonly permission = 'company_documents';
  readonly tool: AgentTool = {
    name: 'company_documents',
    permission: 'company_documents',
    readOnly: true,
    description:
      "Searches the organization's documents (synced drives, sites and uploaded files) and returns the most " +
      'relevant passages with their document id, document name and source.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for, in words.' },
        top_k: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_TOP_K,
          description: `Passages to return (default ${DEFAULT_TOP_K}).`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    execute: (args, context) => this.execute(args, context),
  };

  readonly tools: readonly AgentTool[] = [this.tool];

  constructor(private readonly search: DocumentSearch) {}

  private async execute(args: Record<string, unknown>, context: ToolCallContext): Promise<unknown> {
    const query = args.query;
    if (typeof query !== 'string' || query.trim() === '')
      throw new ToolError('query must be a non-empty string');
    if (query.length > MAX_QUERY_CHARS)
      throw new ToolError(`query must be at most ${MAX_QUERY_CHARS} characters`);
    const topK = args.top_k ?? DEFAULT_TOP_K;
    if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 1 || topK > MAX_TOP_K) {
      throw new ToolError(`top_k must be an integer from 1 to ${MAX_TOP_K}`);
    }
    const passages = await this.search.search(
      {
        orgId: context.orgId,
        userId: context.userId,
        sourceIds: context.sourceIds,
        documentIds: context.documentIds,
      },
      query,
      topK,
    );
    return { query, passages };
  }
}
