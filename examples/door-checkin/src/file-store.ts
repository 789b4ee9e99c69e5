import { mkdir, open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { DoorJournalEntry, DoorStore } from '@boxoffice/sdk/doors';

const JOURNAL = 'journal.ndjson';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Writes `text` to `file` and flushes it to the disk. */
async function writeDurably(file: string, text: string, flag: 'w' | 'a'): Promise<void> {
  const handle = await open(file, flag);
  try {
    await handle.writeFile(text);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Makes a rename in `dir` durable too (where the platform can sync a directory). */
async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Not every platform opens or syncs directories (Windows); the rename itself is atomic.
  } finally {
    await handle?.close();
  }
}

/** How long an appended entry may wait for its flush to the disk. */
const SYNC_DELAY_MS = 200;

/**
 * A `DoorStore` in a directory: each value in `<key>.json`, replaced by writing a temporary file
 * and renaming it over the old one (a crash leaves the old value or the new, never half of one),
 * and the journal in `journal.ndjson`, one JSON entry a line.
 *
 * A scan waits for its journal line to be written, not for the disk: `append` resolves once the
 * line is in the file (the operating system keeps it if the process is killed), and the file is
 * flushed to the disk within SYNC_DELAY_MS, once for all the lines written meanwhile. A flush costs
 * 1–10 ms on an ordinary disk; a scan answered after one would keep a lane waiting, and a power
 * cut would lose at most the last fifth of a second of scans. `drop` rewrites the journal beside
 * the old one while scans go on being appended, and swaps it in with them.
 */
export class FileDoorStore implements DoorStore {
  private journalWrites: Promise<unknown> = Promise.resolve();
  private valueWrites: Promise<unknown> = Promise.resolve();
  private syncTimer: ReturnType<typeof setTimeout> | undefined;
  /** While `drop` writes the new journal: the lines appended to the old one meanwhile. */
  private appendedDuringDrop: string[] | undefined;

  readonly dir: string;
  private journalFile: FileHandle;

  private constructor(dir: string, journalFile: FileHandle) {
    this.dir = dir;
    this.journalFile = journalFile;
  }

  /**
   * The store in `dir`, made if missing. A journal line cut short by a crash in the middle of an
   * append is removed: its `append` never resolved, so the door never answered for it.
   */
  static async open(dir: string): Promise<FileDoorStore> {
    await mkdir(dir, { recursive: true });
    const journal = path.join(dir, JOURNAL);
    const text = await readJournal(journal);
    if (text !== '' && !text.endsWith('\n')) {
      await replaceDurably(journal, text.slice(0, text.lastIndexOf('\n') + 1));
    }
    return new FileDoorStore(dir, await open(journal, 'a'));
  }

  private file(key: string): string {
    if (!/^[\w-]+$/.test(key)) throw new Error(`not a store key: ${JSON.stringify(key)}`);
    return path.join(this.dir, `${key}.json`);
  }

  /** Runs journal writes one after the other, in the order called. */
  private inJournalOrder<T>(write: () => Promise<T>): Promise<T> {
    const next = this.journalWrites.then(write);
    this.journalWrites = next.catch(() => undefined);
    return next;
  }

  /** Flushes the journal to the disk soon, once for every line written until then. */
  private syncSoon(): void {
    this.syncTimer ??= setTimeout(() => {
      this.syncTimer = undefined;
      void this.inJournalOrder(() => this.journalFile.datasync()).catch(() => undefined);
    }, SYNC_DELAY_MS);
  }

  async get(key: string): Promise<unknown> {
    try {
      return JSON.parse(await readFile(this.file(key), 'utf8')) as unknown;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async set(key: string, value: unknown): Promise<void> {
    // Serialised now, before any wait: the door may change its objects once this returns.
    const text = JSON.stringify(value);
    const file = this.file(key);
    const next = this.valueWrites.then(() => replaceDurably(file, text));
    this.valueWrites = next.catch(() => undefined);
    return next;
  }

  append(entries: readonly DoorJournalEntry[]): Promise<void> {
    const text = entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
    return this.inJournalOrder(async () => {
      await this.journalFile.write(text);
      this.appendedDuringDrop?.push(text);
      this.syncSoon();
    });
  }

  journal(): Promise<DoorJournalEntry[]> {
    return this.inJournalOrder(async () => parseJournal(await readJournal(this.journalPath)));
  }

  private get journalPath(): string {
    return path.join(this.dir, JOURNAL);
  }

  async drop(keys: readonly string[]): Promise<void> {
    const gone = new Set(keys);
    const text = await this.inJournalOrder(async () => {
      this.appendedDuringDrop = [];
      return readJournal(this.journalPath);
    });
    const kept = text
      .split('\n')
      .slice(0, -1)
      .filter((line) => line !== '' && !gone.has((JSON.parse(line) as DoorJournalEntry).key));
    const temporary = `${this.journalPath}.tmp`;
    try {
      // The slow part (write, flush) runs while scans are still appended to the old journal.
      await writeDurably(temporary, kept.map((line) => `${line}\n`).join(''), 'w');
      await this.inJournalOrder(async () => {
        const appended = this.appendedDuringDrop ?? [];
        const next = await open(temporary, 'a');
        try {
          await next.write(appended.join(''));
          await next.datasync();
          await rename(temporary, this.journalPath);
        } catch (error) {
          await next.close();
          throw error;
        }
        const old = this.journalFile;
        this.journalFile = next;
        await old.close();
      });
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    } finally {
      this.appendedDuringDrop = undefined;
    }
    await syncDirectory(this.dir);
  }

  /** Flushes what was appended and closes the journal. */
  close(): Promise<void> {
    clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    return this.inJournalOrder(async () => {
      await this.journalFile.datasync();
      await this.journalFile.close();
    });
  }
}

async function readJournal(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (isMissing(error)) return '';
    throw error;
  }
}

/** The entries of a journal's text; a last line without its newline is an append that never finished. */
function parseJournal(text: string): DoorJournalEntry[] {
  return text
    .split('\n')
    .slice(0, -1)
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as DoorJournalEntry);
}

/** Replaces `file` with `text`: a temporary file, flushed, renamed over it, the rename flushed. */
async function replaceDurably(file: string, text: string): Promise<void> {
  const temporary = `${file}.tmp`;
  try {
    await writeDurably(temporary, text, 'w');
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(path.dirname(file));
}
