import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  contract,
  EXPORT_FILTER_SCHEMAS,
  EXPORT_RESOURCES,
  EXPORT_ROW_SCHEMAS,
  ExportCreateSchema,
  ExportListQuerySchema,
  ExportSchema,
  type ExportCreateOf,
  type ExportFilters,
  type ExportRow,
  type Ticket,
  type Attendee,
} from './index';

const issues = (value: unknown) => ExportCreateSchema.safeParse(value).error?.issues ?? [];

describe('an export request', () => {
  it('takes a resource, its list filters and a format, each optional but the resource', () => {
    expect(ExportCreateSchema.parse({ resource: 'tickets' })).toEqual({ resource: 'tickets' });
    const parsed = ExportCreateSchema.parse({
      resource: 'tickets',
      filters: { status: 'valid,checked_in', updated_since: '2026-12-01T10:00:00+01:00' },
      format: 'csv',
    });
    expect(parsed).toEqual({
      resource: 'tickets',
      filters: { status: ['valid', 'checked_in'], updated_since: new Date('2026-12-01T09:00:00Z') },
      format: 'csv',
    });
    expect(
      ExportCreateSchema.parse({ resource: 'attendees', filters: { checked_in: false } }).filters,
    ).toEqual({ checked_in: false });
  });

  it('refuses an unknown resource, naming the field', () => {
    const [issue] = issues({ resource: 'refunds' });
    expect(issue).toMatchObject({ code: 'invalid_union_discriminator', path: ['resource'] });
    expect(issues({})[0]).toMatchObject({ path: ['resource'] });
  });

  it("refuses a filter the resource's list does not take, and the pagination parameters", () => {
    // `code` filters tickets, not orders; `since` is the check-ins' own.
    expect(issues({ resource: 'orders', filters: { code: 'x' } })[0]).toMatchObject({
      code: 'unrecognized_keys',
      keys: ['code'],
      path: ['filters'],
    });
    expect(
      issues({ resource: 'tickets', filters: { since: '2026-01-01T00:00:00Z' } })[0],
    ).toMatchObject({
      code: 'unrecognized_keys',
      keys: ['since'],
    });
    for (const param of ['limit', 'page', 'cursor', 'starting_after', 'ending_before']) {
      expect(issues({ resource: 'events', filters: { [param]: '10' } })[0], param).toMatchObject({
        code: 'unrecognized_keys',
        keys: [param],
        path: ['filters'],
      });
    }
  });

  it('refuses a bad filter value with the list’s own message, and an unknown format or field', () => {
    const [status] = issues({ resource: 'tickets', filters: { status: 'used' } });
    expect(status?.path).toEqual(['filters', 'status']);
    expect(status?.message).toMatch(/^status must be one or more of: valid, checked_in, void/);
    expect(issues({ resource: 'events', filters: { starts_after: 'soon' } })[0]?.path).toEqual([
      'filters',
      'starts_after',
    ]);
    expect(issues({ resource: 'events', format: 'xlsx' })[0]?.path).toEqual(['format']);
    expect(issues({ resource: 'events', fromat: 'csv' })[0]).toMatchObject({
      code: 'unrecognized_keys',
      keys: ['fromat'],
    });
  });

  it("has every list's filters and rows, and nothing else", () => {
    expect(Object.keys(EXPORT_FILTER_SCHEMAS).sort()).toEqual([...EXPORT_RESOURCES].sort());
    expect(Object.keys(EXPORT_ROW_SCHEMAS).sort()).toEqual([...EXPORT_RESOURCES].sort());
    const lists = contract as unknown as Record<string, { list?: { query: { shape: object } } }>;
    for (const resource of EXPORT_RESOURCES) {
      const listParams = Object.keys(lists[resource]?.list?.query.shape ?? {});
      expect(listParams.length, resource).toBeGreaterThan(3);
      const filters = Object.keys(EXPORT_FILTER_SCHEMAS[resource].shape);
      expect(filters.sort(), resource).toEqual(
        listParams.filter((name) => !['page', 'limit', 'cursor'].includes(name)).sort(),
      );
    }
  });

  it('types rows and filters per resource', () => {
    expectTypeOf<ExportRow<'tickets'>>().toEqualTypeOf<Ticket>();
    expectTypeOf<ExportRow<'attendees'>>().toEqualTypeOf<Attendee>();
    expectTypeOf<ExportFilters<'tickets'>>().toHaveProperty('tier_id');
    expectTypeOf<ExportCreateOf<'checkins'>['resource']>().toEqualTypeOf<'checkins'>();
  });
});

describe('an export', () => {
  it('is rendered with its filters, counts and checkpoint, nullable until ready', () => {
    const pending = {
      id: 'exp_0VbgAUa3kT9mQ2xLr8Zp1WcE',
      resource: 'tickets',
      filters: {},
      format: 'ndjson',
      status: 'pending',
      row_count: null,
      size_bytes: null,
      sync_checkpoint: null,
      completed_at: null,
      expires_at: null,
      failure_reason: null,
      livemode: true,
      created_at: '2026-12-06T10:00:00.000Z',
      updated_at: '2026-12-06T10:00:00.000Z',
    };
    expect(ExportSchema.parse(pending)).toEqual(pending);
    expect(ExportSchema.safeParse({ ...pending, status: 'done' }).success).toBe(false);
  });

  it('lists by status and resource', () => {
    expect(ExportListQuerySchema.parse({ status: 'ready', resource: 'tickets' })).toEqual({
      limit: 20,
      status: ['ready'],
      resource: ['tickets'],
    });
    expect(ExportListQuerySchema.safeParse({ format: 'csv' }).success).toBe(false);
  });
});
