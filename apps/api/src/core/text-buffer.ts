/**
 * UTF-8 text appended into one `Buffer`, which doubles when the next text may not fit: text that
 * waits here (a batch of request log records, a chunk of an export file) is outside V8's heap, so
 * waiting costs the garbage collector nothing, and the buffer is reused after `clear()`.
 */
export class TextBuffer {
  #data: Buffer;
  /** Bytes written. */
  length = 0;

  constructor(initialBytes: number) {
    this.#data = Buffer.allocUnsafe(initialBytes);
  }

  write(text: string): void {
    // A UTF-16 code unit is at most 3 bytes of UTF-8.
    const most = this.length + text.length * 3;
    if (most > this.#data.length) {
      const grown = Buffer.allocUnsafe(Math.max(most, this.#data.length * 2));
      this.#data.copy(grown, 0, 0, this.length);
      this.#data = grown;
    }
    this.length += this.#data.write(text, this.length);
  }

  /** What was written (a view of the buffer: valid until the next `write` or `clear`). */
  get bytes(): Buffer {
    return this.#data.subarray(0, this.length);
  }

  clear(): void {
    this.length = 0;
  }
}
