/**
 * The reply streams whose clients have stopped taking bytes, across the whole gateway. Each stream bounds what it
 * holds on its own, and this bounds their sum, so many stalled clients at once cannot grow the gateway's memory
 * either. On shutdown they are cut at once: waiting out their stall timeout would hold the stop open.
 */
export class StalledStreams {
  private heldBytes = 0;
  private readonly cuts = new Set<() => void>();
  private closing = false;

  constructor(private readonly maxBytes: number) {}

  get bytes(): number {
    return this.heldBytes;
  }

  /**
   * Counts a stream that just stalled holding `bytes`, cut by `cut` on shutdown; false (and not counted) when
   * that is over the bound or the gateway is stopping.
   */
  admit(bytes: number, cut: () => void): boolean {
    if (this.closing || this.heldBytes + bytes > this.maxBytes) return false;
    this.heldBytes += bytes;
    this.cuts.add(cut);
    return true;
  }

  /** The stream moved on, or was cut: its bytes no longer count. */
  release(bytes: number, cut: () => void): void {
    this.heldBytes -= bytes;
    this.cuts.delete(cut);
  }

  /** Shutdown: every stalled stream is cut (its client resumes elsewhere with `after`), and any that stalls later. */
  cutAll(): void {
    this.closing = true;
    for (const cut of [...this.cuts]) cut();
  }
}
