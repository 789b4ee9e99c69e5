import { APIPromise, type WithResponse } from './api-promise';

/** The list envelope of the API. */
export interface ListEnvelope<Item> {
  data: Item[];
  total: number;
  page: number;
  limit: number;
}

/** Fetches one page of a list: the same query with another `page`. */
export type PageFetcher<Item> = (page: number) => Promise<WithResponse<ListEnvelope<Item>>>;

/**
 * One page of a list. `data` holds its items; `total` counts every match. The page knows how to
 * fetch the next one and never asks for a page past the end.
 */
export class Page<Item> implements AsyncIterable<Item> {
  readonly data: Item[];
  readonly total: number;
  readonly page: number;
  readonly limit: number;
  /** The raw response of this page. */
  readonly response: Response;

  constructor(
    envelope: ListEnvelope<Item>,
    response: Response,
    private readonly fetchPage: PageFetcher<Item>,
  ) {
    this.data = envelope.data;
    this.total = envelope.total;
    this.page = envelope.page;
    this.limit = envelope.limit;
    this.response = response;
  }

  /** Whether items remain after this page (judged by `total`, so no empty last request). */
  hasNextPage(): boolean {
    return this.data.length > 0 && this.page * this.limit < this.total;
  }

  /** The next page; throws if there is none (check `hasNextPage()` first). */
  async getNextPage(): Promise<Page<Item>> {
    if (!this.hasNextPage()) {
      throw new Error('No next page: check hasNextPage() before calling getNextPage().');
    }
    const { data, response } = await this.fetchPage(this.page + 1);
    return new Page(data, response, this.fetchPage);
  }

  /** This page, then each following one. Only one page is held at a time. */
  async *iterPages(): AsyncGenerator<Page<Item>, void, undefined> {
    yield this;
    let next = this.hasNextPage() ? await this.getNextPage() : undefined;
    while (next) {
      yield next;
      next = next.hasNextPage() ? await next.getNextPage() : undefined;
    }
  }

  /** Every item from this page on, fetching pages as the loop reaches them. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.iterPages()) yield* page.data;
  }
}

/**
 * What `list()` returns: await it for the first `Page`, `for await` over it for every item across
 * pages, or call `.iterPages()` to go page by page.
 */
export class PagePromise<Item> extends APIPromise<Page<Item>> implements AsyncIterable<Item> {
  constructor(fetchPage: PageFetcher<Item>, firstPage: number) {
    super(
      fetchPage(firstPage).then(({ data, response }) => ({
        data: new Page(data, response, fetchPage),
        response,
      })),
    );
  }

  async *iterPages(): AsyncGenerator<Page<Item>, void, undefined> {
    const first = await this;
    yield* first.iterPages();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    const first = await this;
    yield* first;
  }
}
