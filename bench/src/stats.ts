/** The `p`-th percentile (0–100) of `values`, nearest-rank; NaN for no values. */
export function percentile(values: ArrayLike<number>, p: number): number {
  const sorted = Float64Array.from(values).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  // With no values there is no rank 1 either.
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? NaN;
}

export const median = (values: ArrayLike<number>): number => percentile(values, 50);

/** A growable list of latencies that does not box every number. */
export class Samples {
  #values = new Float64Array(1024);
  #length = 0;

  push(value: number): void {
    if (this.#length === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#length++] = value;
  }

  get length(): number {
    return this.#length;
  }

  values(): Float64Array {
    return this.#values.subarray(0, this.#length);
  }
}
