import { TestDeployment } from '../support/deployment';
import { queryDatabase } from '../support/test-environment';

/** What GET /health/admission answers: 200 while admitting, 503 while refusing, with the figures it decided on. */
export interface AdmissionAnswer {
  status: number;
  body: { admitting: boolean; queued_runs: number; reply_start_ms: number; run_start_wait_ms: number };
}

export async function admissionState(gatewayUrl: string): Promise<AdmissionAnswer> {
  const response = await fetch(`${gatewayUrl}/health/admission`);
  return { status: response.status, body: (await response.json()) as AdmissionAnswer['body'] };
}

/** How many threads an end user has stored: a refused start must leave none. */
export async function storedThreads(databaseUrl: string, orgId: string, userId: string): Promise<number> {
  const rows = await queryDatabase<{ count: string }>(
    databaseUrl,
    'SELECT count(*) FROM threads WHERE org_id = $1 AND user_id = $2',
    [orgId, userId],
  );
  return Number(rows[0].count);
}

/** A deployment's admission probes, and a start of a conversation of its agent as `userId` (a reply of `content`). */
export function admissionProbesOf(deployment: TestDeployment) {
  return {
    admission: () => admissionState(deployment.url),
    storedThreads: (userId: string) =>
      storedThreads(deployment.environment.databaseUrl, deployment.org.orgId, userId),
    startChat: (userId: string, content: string) =>
      deployment.client().post('/chat', {
        message: { content },
        options: { agent_id: deployment.agentId, user_id: userId },
      }),
  };
}
