/**
 * The seq of the last event a client already has, as a protocol's resume names it (Last-Event-ID, AG-UI's
 * `after`, the Responses API's `starting_after`): `absent` when not sent; a whole number below 2^53, else what
 * `refuse` makes of it is thrown (each protocol answers a bad request in its own shape).
 */
export function resumeSeq<Absent extends number | undefined>(
  value: string | undefined,
  absent: Absent,
  refuse: (value: string) => Error,
): number | Absent {
  if (value === undefined) return absent;
  if (!/^\d{1,15}$/.test(value)) throw refuse(value);
  return Number(value);
}
