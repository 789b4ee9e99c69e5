import { once } from 'node:events';
import { open, rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

/** Where the CSV goes: written with backpressure, and only put in place once complete. */
export interface Sink {
  write(chunk: string): Promise<void>;
  /** Everything is written: flush, and move the file to its name. */
  commit(): Promise<void>;
  /** The export failed: leave no half-written file behind. */
  abort(): Promise<void>;
}

async function writeTo(stream: Writable, chunk: string): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

/**
 * A file is written next to its destination and renamed over it at the end, so a failed or
 * interrupted sync never leaves a truncated `orders.csv` for the next step to import. Opening it
 * first makes a bad path fail here, before any request is made.
 */
export async function openFileSink(path: string): Promise<Sink> {
  const partial = `${path}.partial`;
  const stream = (await open(partial, 'w')).createWriteStream({ encoding: 'utf8' });
  let failure: Error | undefined;
  stream.on('error', (error) => (failure ??= error));
  return {
    async write(chunk) {
      if (failure) throw failure;
      await writeTo(stream, chunk);
    },
    async commit() {
      stream.end();
      await finished(stream);
      await rename(partial, path);
    },
    async abort() {
      stream.destroy();
      await rm(partial, { force: true });
    },
  };
}

export function stdoutSink(): Sink {
  return {
    write: (chunk) => writeTo(process.stdout, chunk),
    commit: async () => {},
    abort: async () => {},
  };
}
