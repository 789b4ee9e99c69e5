import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
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

/**
 * A `DoorStore` in a directory: each value in `<key>.json`, replaced by writing a temporary file
 * and renaming it over the old one (a crash leaves the old value or the new, never half of one),
 * and the journal in `journal.ndjson`, one JSON entry a line, appended and flushed to the disk
 * before `append` resolves. `drop` rewrites the journal the same way as a value. Writes to the
 * journal go one at a time, as do writes of values; a value being written never holds up a scan.
 */
export class FileDoorStore implements DoorStore {
  private journalWrites: Promise<unknown> = Promise.resolve();
  private valueWrites: Promise<unknown> = Promise.resolve();

  private constructor(readonly dir: string) {}

  /**
   * The store in `dir`, made if missing. A journal line cut short by a crash in the middle of an
   * append is removed: its `append` never resolved, so the door never answered for it.
   */
  static async open(dir: string): Promise<FileDoorStore> {
    await mkdir(dir, { recursive: true });
    const store = new FileDoorStore(dir);
    const text = await store.readJournal();
    if (text !== '' && !text.endsWith('\n')) {
      await store.rewrite(JOURNAL, text.slice(0, text.lastIndexOf('\n') + 1));
    }
    return store;
  }

  private file(key: string): string {
    if (!/^[\w-]+$/.test(key)) throw new Error(`not a store key: ${JSON.stringify(key)}`);
    return path.join(this.dir, `${key}.json`);
  }

  private async readJournal(): Promise<string> {
    try {
      return await readFile(path.join(this.dir, JOURNAL), 'utf8');
    } catch (error) {
      if (isMissing(error)) return '';
      throw error;
    }
  }

  private async rewrite(name: string, text: string): Promise<void> {
    const target = path.join(this.dir, name);
    const temporary = `${target}.tmp`;
    try {
      await writeDurably(temporary, text, 'w');
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await syncDirectory(this.dir);
  }

  /** Runs journal writes one after the other, in the order called. */
  private inJournalOrder<T>(write: () => Promise<T>): Promise<T> {
    const next = this.journalWrites.then(write);
    this.journalWrites = next.catch(() => undefined);
    return next;
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
    const name = path.basename(this.file(key));
    const next = this.valueWrites.then(() => this.rewrite(name, text));
    this.valueWrites = next.catch(() => undefined);
    return next;
  }

  append(entries: readonly DoorJournalEntry[]): Promise<void> {
    const text = entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
    return this.inJournalOrder(() => writeDurably(path.join(this.dir, JOURNAL), text, 'a'));
  }

  journal(): Promise<DoorJournalEntry[]> {
    return this.inJournalOrder(async () => {
      const lines = (await this.readJournal()).split('\n');
      // A last line without its newline is an append that never finished.
      lines.pop();
      return lines
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as DoorJournalEntry);
    });
  }

  drop(keys: readonly string[]): Promise<void> {
    const gone = new Set(keys);
    return this.inJournalOrder(async () => {
      const lines = (await this.readJournal()).split('\n');
      lines.pop();
      const kept = lines.filter((line) => {
        if (line === '') return false;
        return !gone.has((JSON.parse(line) as DoorJournalEntry).key);
      });
      await this.rewrite(JOURNAL, kept.map((line) => `${line}\n`).join(''));
    });
  }
}
