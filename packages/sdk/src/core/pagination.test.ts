import { describe, expect, it } from 'vitest';
import { Page, PagePromise, type ListEnvelope, type PageFetcher } from './pagination';

/**
 * A list of `total` numbered items served `limit` at a time, as the API serves it: the first
 * request at `firstPage`, then cursors (`c<next item>`). Records the pages asked for, by number.
 */
function source(total: number, limit: number, firstPage = 1) {
  const asked: number[] = [];
  const cursors: string[] = [];
  const fetchPage: PageFetcher<number> = (next) => {
    let start = (firstPage - 1) * limit;
    if (next && 'cursor' in next) {
      cursors.push(next.cursor);
      start = Number(next.cursor.slice(1));
    }
    const page = start / limit + 1;
    asked.push(page);
    const data = Array.from(
      { length: Math.max(0, Math.min(limit, total - start)) },
      (_, i) => start + i,
    );
    const end = start + data.length;
    const response = new Response(null, { headers: { 'x-page': String(page) } });
    return Promise.resolve({
      data: {
        data,
        total,
        page,
        limit,
        next_cursor: end < total ? `c${end}` : null,
        sync_checkpoint: '2026-11-23T12:00:00.000Z',
      },
      response,
      text: '',
    });
  };
  return { asked, cursors, fetchPage };
}

/** The same list from a server that predates cursors: pages by number, no `next_cursor`. */
function numberedSource(total: number, limit: number) {
  const asked: number[] = [];
  const fetchPage: PageFetcher<number> = (next) => {
    const page = next && 'page' in next ? next.page : 1;
    asked.push(page);
    const start = (page - 1) * limit;
    const data = Array.from(
      { length: Math.max(0, Math.min(limit, total - start)) },
      (_, i) => start + i,
    );
    const envelope = { data, total, page, limit } as Omit<
      ListEnvelope<number>,
      'next_cursor' | 'sync_checkpoint'
    >;
    return Promise.resolve({
      data: envelope as ListEnvelope<number>,
      response: new Response(null),
      text: '',
    });
  };
  return { asked, fetchPage };
}

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

describe('PagePromise', () => {
  it('awaits to the first page', async () => {
    const { asked, fetchPage } = source(45, 20);
    const page = await new PagePromise(fetchPage);
    expect(page).toBeInstanceOf(Page);
    expect(page.data).toHaveLength(20);
    expect(page).toMatchObject({ total: 45, page: 1, limit: 20 });
    expect(page.hasNextPage()).toBe(true);
    expect(page.response.headers.get('x-page')).toBe('1');
    expect(asked).toEqual([1]);
  });

  it('gives the first page with its response', async () => {
    const { fetchPage } = source(5, 20);
    const { data, response } = await new PagePromise(fetchPage).withResponse();
    expect(data).toBeInstanceOf(Page);
    expect(data.data).toEqual([0, 1, 2, 3, 4]);
    expect(response.headers.get('x-page')).toBe('1');
  });

  it.each([
    [45, 20, [1, 2, 3]],
    [40, 20, [1, 2]],
    [20, 20, [1]],
    [21, 20, [1, 2]],
    [1, 20, [1]],
    [0, 20, [1]],
    [5, 1, [1, 2, 3, 4, 5]],
  ])('with total %i and limit %i asks for pages %j and no more', async (total, limit, pages) => {
    const { asked, fetchPage } = source(total, limit);
    const items = await collect(new PagePromise(fetchPage));
    expect(items).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(asked).toEqual(pages);
  });

  it('goes page by page with iterPages', async () => {
    const { asked, fetchPage } = source(45, 20);
    const pages = await collect(new PagePromise(fetchPage).iterPages());
    expect(pages.map((p) => [p.page, p.data.length])).toEqual([
      [1, 20],
      [2, 20],
      [3, 5],
    ]);
    expect(pages.every((p) => p instanceof Page)).toBe(true);
    expect(asked).toEqual([1, 2, 3]);
  });

  it('starts at the page asked for, then follows cursors', async () => {
    const { asked, cursors, fetchPage } = source(45, 20, 2);
    const items = await collect(new PagePromise(fetchPage));
    expect(items).toEqual(Array.from({ length: 25 }, (_, i) => 20 + i));
    expect(asked).toEqual([2, 3]);
    expect(cursors).toEqual(['c40']);
  });

  it('exposes each page’s cursor and the walk’s sync checkpoint', async () => {
    const { fetchPage } = source(45, 20);
    const pages = await collect(new PagePromise(fetchPage).iterPages());
    expect(pages.map((p) => p.nextCursor)).toEqual(['c20', 'c40', null]);
    expect(pages.map((p) => p.syncCheckpoint)).toEqual(Array(3).fill('2026-11-23T12:00:00.000Z'));
  });

  it('pages by number where the server sends no cursor', async () => {
    const { asked, fetchPage } = numberedSource(45, 20);
    const pages = await collect(new PagePromise(fetchPage).iterPages());
    expect(pages.map((p) => [p.page, p.data.length, p.nextCursor])).toEqual([
      [1, 20, null],
      [2, 20, null],
      [3, 5, null],
    ]);
    expect(asked).toEqual([1, 2, 3]);
  });

  it('stops at an empty page past the end', async () => {
    const { asked, fetchPage } = source(45, 20, 7);
    const page = await new PagePromise(fetchPage);
    expect(page.data).toEqual([]);
    expect(page.total).toBe(45);
    expect(page.hasNextPage()).toBe(false);
    expect(await collect(page)).toEqual([]);
    expect(asked).toEqual([7]);
  });

  it('passes a failed first page on to every consumer', async () => {
    const failing = () => Promise.reject(new Error('boom'));
    await expect(new PagePromise<number>(failing)).rejects.toThrow('boom');
    await expect(collect(new PagePromise<number>(failing))).rejects.toThrow('boom');
    await expect(collect(new PagePromise<number>(failing).iterPages())).rejects.toThrow('boom');
  });
});

describe('Page', () => {
  it('fetches the next page, and refuses to go past the last', async () => {
    const { asked, fetchPage } = source(25, 20);
    const first = await new PagePromise(fetchPage);
    const second = await first.getNextPage();
    expect(second.page).toBe(2);
    expect(second.data).toEqual([20, 21, 22, 23, 24]);
    expect(second.hasNextPage()).toBe(false);
    await expect(second.getNextPage()).rejects.toThrow(/No next page/);
    expect(asked).toEqual([1, 2]);
  });

  it('iterates from itself onwards', async () => {
    const { asked, fetchPage } = source(45, 20);
    const second = await (await new PagePromise(fetchPage)).getNextPage();
    expect(await collect(second)).toEqual(Array.from({ length: 25 }, (_, i) => 20 + i));
    expect(asked).toEqual([1, 2, 3]);
  });

  it('fetches a page only when the loop reaches it', async () => {
    const { asked, fetchPage } = source(100, 10);
    const seen: number[] = [];
    for await (const item of new PagePromise(fetchPage)) {
      seen.push(item);
      if (item === 14) break;
    }
    expect(seen).toHaveLength(15);
    expect(asked).toEqual([1, 2]);
  });
});

/**
 * The list of `source`, from a server that names the next page in its headers: each request tells
 * `onNextCursor` at once, and its body arrives when the test releases it. Records the order of
 * requests and bodies.
 */
function linkedSource(total: number, limit: number) {
  const log: string[] = [];
  const bodies: (() => void)[] = [];
  let open = 0;
  let mostOpen = 0;
  const fetchPage: PageFetcher<number> = (next, onNextCursor) => {
    const start = next && 'cursor' in next ? Number(next.cursor.slice(1)) : 0;
    const page = start / limit + 1;
    log.push(`ask ${page}`);
    open++;
    mostOpen = Math.max(mostOpen, open);
    const data = Array.from({ length: Math.min(limit, total - start) }, (_, i) => start + i);
    const end = start + data.length;
    const nextCursor = end < total ? `c${end}` : null;
    if (nextCursor !== null) onNextCursor?.(nextCursor);
    return new Promise((resolve) => {
      bodies.push(() => {
        open--;
        log.push(`body ${page}`);
        resolve({
          data: {
            data,
            total,
            page,
            limit,
            next_cursor: nextCursor,
            sync_checkpoint: '2026-11-23T12:00:00.000Z',
          },
          response: new Response(null),
          text: '',
        });
      });
    });
  };
  /** Lets the oldest request's body arrive, once one is waiting. */
  const release = async () => {
    while (bodies.length === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    bodies.shift()!();
  };
  return { log, fetchPage, release, mostOpen: () => mostOpen, waiting: () => bodies.length };
}

describe('walking a list whose answers name the next page in their headers', () => {
  it('asks for the next page while the current one is awaited, never more than one ahead', async () => {
    const source = linkedSource(50, 10);
    const items: number[] = [];
    const walk = (async () => {
      for await (const item of new PagePromise(source.fetchPage)) items.push(item);
    })();
    for (let i = 0; i < 5; i++) await source.release();
    await walk;
    expect(items).toEqual(Array.from({ length: 50 }, (_, i) => i));
    // Page 3 is asked for as soon as page 2's headers name it, before page 2's body is read.
    expect(source.log.indexOf('ask 3')).toBeLessThan(source.log.indexOf('body 2'));
    expect(source.log.filter((entry) => entry.startsWith('ask'))).toEqual([
      'ask 1',
      'ask 2',
      'ask 3',
      'ask 4',
      'ask 5',
    ]);
    expect(source.mostOpen()).toBe(2);
  });

  it('leaves at most one page unused when the loop stops early', async () => {
    const source = linkedSource(100, 10);
    const walk = (async () => {
      let seen = 0;
      for await (const item of new PagePromise(source.fetchPage)) {
        if (++seen === 25) return item;
      }
      return undefined;
    })();
    for (let i = 0; i < 3; i++) await source.release();
    expect(await walk).toBe(24);
    expect(source.log.filter((entry) => entry.startsWith('ask'))).toEqual([
      'ask 1',
      'ask 2',
      'ask 3',
      'ask 4',
    ]);
    // The unused page's answer may still come, or fail, without harm.
    await source.release();
  });

  it('gives getNextPage() no request ahead', async () => {
    const source = linkedSource(30, 10);
    const first = new PagePromise(source.fetchPage);
    await source.release();
    const page = await first;
    const second = page.getNextPage();
    await source.release();
    await second;
    expect(source.log).toEqual(['ask 1', 'body 1', 'ask 2', 'body 2']);
  });
});
