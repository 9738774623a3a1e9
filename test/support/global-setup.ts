import { dropLeftoverEnvironments } from './test-environment';

/** Before any suite: a run that was killed (Ctrl-C, a CI time-out) left databases and Redis keys; drop them. */
export default async function globalSetup(): Promise<void> {
  const dropped = await dropLeftoverEnvironments();
  if (dropped.length > 0) console.log(`dropped ${dropped.length} test environments a killed run left behind`);
}
