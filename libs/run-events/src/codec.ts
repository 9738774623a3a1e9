import { RunEvent } from './run-event';

/**
 * How an event sits in Redis. In the replay stream, an event's entry id is `0-<seq + 1>`: XADD refuses an id
 * not above the last one, so a second writer of the same reply (a stalled worker that came back) cannot
 * write a duplicate or out-of-order seq. The entry has one field, `e`, holding the JSON line; the pub/sub
 * channel carries the same JSON line.
 */
export const EVENT_FIELD = 'e';

export const streamEntryId = (seq: number): string => `0-${seq + 1}`;

export const seqOfEntryId = (id: string): number => Number(id.slice(id.indexOf('-') + 1)) - 1;

export const encodeEvent = (event: RunEvent): string => JSON.stringify(event);

export const decodeEvent = (line: string): RunEvent => JSON.parse(line) as RunEvent;
