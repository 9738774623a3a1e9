/** Who is calling: the organization of the key, the key itself and the request (for logs). */
export interface Caller {
  orgId: string;
  keyId: string;
  requestId: string;
}
