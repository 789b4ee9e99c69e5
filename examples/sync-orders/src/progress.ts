const REDRAW_MS = 100;

/**
 * A progress bar on a terminal (`[#######.......] 350/1000 orders  35%  210/s  ETA 3s`), redrawn
 * in place at most every 100 ms; on a pipe or file, a plain line per `step` items instead.
 */
export class Progress {
  private done = 0;
  private lastDraw = 0;
  private readonly started = Date.now();
  private readonly interactive: boolean;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly total: number,
    private readonly options: { label: string; step: number; enabled: boolean },
  ) {
    this.interactive = options.enabled && stream.isTTY;
  }

  tick(): void {
    this.done += 1;
    if (!this.options.enabled) return;
    if (this.interactive) {
      const now = Date.now();
      if (now - this.lastDraw >= REDRAW_MS) {
        this.lastDraw = now;
        this.draw();
      }
    } else if (this.done % this.options.step === 0) {
      this.stream.write(`${this.counts()}\n`);
    }
  }

  /** The final state, and the cursor back at the start of a fresh line. */
  finish(): void {
    if (!this.options.enabled) return;
    if (this.interactive) {
      this.draw();
      this.stream.write('\n');
    } else if (this.done % this.options.step !== 0 || this.done === 0) {
      this.stream.write(`${this.counts()}\n`);
    }
  }

  private counts(): string {
    // The total comes from the first page: items added during the run can take `done` past it.
    const total = Math.max(this.total, this.done);
    const percent = total === 0 ? 100 : Math.floor((this.done / total) * 100);
    return `${this.done}/${total} ${this.options.label} ${String(percent).padStart(3)}%`;
  }

  private draw(): void {
    const total = Math.max(this.total, this.done);
    const width = Math.max(10, Math.min(40, (this.stream.columns || 80) - 50));
    const filled = total === 0 ? width : Math.round((this.done / total) * width);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
    const seconds = (Date.now() - this.started) / 1000;
    let speed = '';
    // The first second's rate is mostly connection setup: say nothing rather than nonsense.
    if (seconds >= 1) {
      const rate = this.done / seconds;
      speed = `  ${Math.round(rate)}/s`;
      if (total > this.done) speed += `  ETA ${Math.ceil((total - this.done) / rate)}s`;
    }
    // \r returns to the line start; \x1b[K clears what a longer previous draw left behind.
    this.stream.write(`\r${bar} ${this.counts()}${speed}\x1b[K`);
  }
}
