/**
 * The bytes held for reply streams whose clients have stopped taking them, across the whole gateway: each
 * stream bounds what it holds on its own, and this bounds their sum, so many stalled clients at once cannot
 * grow the gateway's memory either.
 */
export class StalledStreams {
  private heldBytes = 0;

  constructor(private readonly maxBytes: number) {}

  get bytes(): number {
    return this.heldBytes;
  }

  /** Counts a stream that just stalled holding `bytes`; false (and not counted) when that is over the bound. */
  admit(bytes: number): boolean {
    if (this.heldBytes + bytes > this.maxBytes) return false;
    this.heldBytes += bytes;
    return true;
  }

  /** The stream moved on, or was cut: its bytes no longer count. */
  release(bytes: number): void {
    this.heldBytes -= bytes;
  }
}
