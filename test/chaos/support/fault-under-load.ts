import { ChaosStack, timeUntil } from './chaos-stack';
import { onlyCompleted, settle, toolCallLoad } from './conversations';
import { report } from './report';

/** A fault a test injects under load, and how the report names it. */
export interface LoadedFault {
  /** The report's name of the test. */
  name: string;
  /** The fault in the report's words. */
  description: string;
  /** The moment the load runs across, e.g. `the crash`. */
  across: string;
  /** Injects the fault and undoes it; answers the fault's timings once the gateway is ready again after `readyMs`. */
  inject(): Promise<(readyMs: number) => Record<string, number>>;
}

/**
 * The recovery most faults are held to: the tool-call load runs from 2 s before the fault to 2 s after the first
 * gateway is ready again; then every request was answered 200 or 503, and every accepted reply completes, with
 * no tool call repeated and no stream gap. The counts and timings are reported under the fault's name.
 */
export async function expectRecoveryUnderLoad(stack: ChaosStack, fault: LoadedFault): Promise<void> {
  const load = toolCallLoad(stack, fault.across);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const timingsOnceReady = await fault.inject();
  const gatewayUrl = stack.gateways[0].url!;
  const readyAgainMs = await timeUntil(async () => (await fetch(`${gatewayUrl}/health/ready`)).ok);
  const timings = timingsOnceReady(readyAgainMs);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const { started, refusals } = await load.stop();

  const counts = await settle(gatewayUrl, stack.key, stack.env.DATABASE_URL!, started, 90000);
  report(fault.name, {
    fault: fault.description,
    load: `open loop: a conversation with a tool call every 100 ms, from 2 s before ${fault.across} to 2 s after ready`,
    counts,
    expectedErrors: `answers other than 200, by status: ${JSON.stringify(refusals)} (503 expected)`,
    timings,
  });
  expect(Object.keys(refusals).filter((status) => status !== '503')).toEqual([]);
  expect(started.length).toBeGreaterThan(30);
  expect(counts).toEqual(onlyCompleted(started.length));
}
