const NEWLINE = 0x0a;

/**
 * Splits a byte stream into its lines as they arrive, decoding only whole lines, so a chunk that
 * ends inside a line or inside a UTF-8 character is held until the rest comes. Counts the bytes of
 * the lines handed out: where a download broken after them resumes.
 */
export class LineSplitter {
  /** Bytes of every complete line handed out, newlines included. */
  consumed = 0;
  private held: Uint8Array[] = [];
  private heldLength = 0;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  /** The lines that `chunk` completes, without their line ends. */
  *push(chunk: Uint8Array): Generator<string, void, undefined> {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      const line = this.take(chunk.subarray(start, end));
      this.consumed += line.byteLength + 1;
      start = end + 1;
      yield this.decode(line);
    }
    if (start < chunk.byteLength) {
      // Copied: the stream may reuse the chunk's buffer for the next read.
      this.held.push(chunk.slice(start));
      this.heldLength += chunk.byteLength - start;
    }
  }

  /** The last line, if the stream ended without a line end after it. */
  end(): string | undefined {
    if (this.heldLength === 0) return undefined;
    const line = this.take(new Uint8Array(0));
    this.consumed += line.byteLength;
    return this.decode(line);
  }

  /** Forgets a partial line: the download resumes at its first byte. */
  dropPartial(): void {
    this.held = [];
    this.heldLength = 0;
  }

  private take(tail: Uint8Array): Uint8Array {
    if (this.heldLength === 0) return tail;
    const line = new Uint8Array(this.heldLength + tail.byteLength);
    let at = 0;
    for (const part of this.held) {
      line.set(part, at);
      at += part.byteLength;
    }
    line.set(tail, at);
    this.held = [];
    this.heldLength = 0;
    return line;
  }

  private decode(line: Uint8Array): string {
    const text = this.decoder.decode(line);
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  }
}
