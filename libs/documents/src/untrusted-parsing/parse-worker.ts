/**
 * The body of a parsing thread (piscina): runs one exported parse function of a module of this service. Buffers
 * arrive as Uint8Array (structured clone) and are given back their Buffer face before the call.
 */
export interface ParseTask {
  /** The compiled module that exports the function: a file of this service, never an input. */
  module: string;
  name: string;
  args: unknown[];
}

export default async function runParseTask(task: ParseTask): Promise<unknown> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const parse = (require(task.module) as Record<string, unknown>)[task.name];
  if (typeof parse !== 'function') throw new Error(`${task.name} is not a function of ${task.module}`);
  const args = task.args.map((arg) =>
    arg instanceof Uint8Array && !Buffer.isBuffer(arg)
      ? Buffer.from(arg.buffer, arg.byteOffset, arg.byteLength)
      : arg,
  );
  return (await (parse as (...values: unknown[]) => unknown)(...args)) as unknown;
}
