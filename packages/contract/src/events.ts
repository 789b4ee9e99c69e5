import { z } from 'zod';
import {
  createRoute,
  CurrencySchema,
  PaginationQuerySchema,
  readRoutes,
  textParam,
  TextSchema,
  timestampParam,
  TimestampSchema,
  TimeZoneSchema,
  updateRoute,
} from './common';
import { byStatus, sinceUpdated } from './list-filters';
import { resourceRouter } from './resource-router';
import { resourceSchema } from './resource-schema';

export const EVENT_STATUSES = ['draft', 'published', 'completed', 'cancelled'] as const;
export const EventStatusSchema = z.enum(EVENT_STATUSES);
export type EventStatus = z.infer<typeof EventStatusSchema>;

/** Allowed status changes; `cancelled` and `completed` are final. */
export const EVENT_TRANSITIONS: Readonly<Record<EventStatus, readonly EventStatus[]>> = {
  draft: ['published', 'cancelled'],
  published: ['completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

export const EventSchema = resourceSchema({
  /** The event's id, `evt_…`. */
  id: z.string(),
  /** The event's name, 1–200 characters. */
  name: z.string(),
  /** Free text about the event, or `null`. */
  description: z.string().nullable(),
  /** Where it takes place, or `null`. */
  venue: z.string().nullable(),
  /** The IANA time zone of the venue, e.g. `Europe/London`: local times are shown in it. */
  timezone: z.string(),
  /** When the event starts (ISO-8601, UTC). */
  starts_at: TimestampSchema,
  /** When the event ends (ISO-8601, UTC); always after `starts_at`. */
  ends_at: TimestampSchema,
  /** When the doors open (ISO-8601, UTC), or `null`. */
  doors_open_at: TimestampSchema.nullable(),
  /** The ISO 4217 currency of its tiers' prices, e.g. `GBP`; fixed once it has tiers. */
  currency: z.string(),
  /** How many people the venue holds, or `null` for no stated limit. */
  capacity: z.number().int().nullable(),
  /**
   * `draft`, `published`, `completed` or `cancelled`: `draft → published → completed`, or
   * `cancelled` from `draft` or `published`. `completed` and `cancelled` are final.
   */
  status: EventStatusSchema,
  /** When the event was published, or `null`. Set by the server. */
  published_at: TimestampSchema.nullable(),
  /** When the event was cancelled, or `null`. Set by the server. */
  cancelled_at: TimestampSchema.nullable(),
});
export type Event = z.infer<typeof EventSchema>;

const writableEventFields = {
  /** The event's name, 1–200 characters (trimmed). */
  name: TextSchema.trim().min(1).max(200),
  /** Free text about the event, up to 5,000 characters, or `null`. */
  description: TextSchema.max(5000).nullable(),
  /** Where it takes place, up to 500 characters, or `null`. */
  venue: TextSchema.max(500).nullable(),
  /** An IANA time zone name, e.g. `Europe/London` (any case; stored canonical). */
  timezone: TimeZoneSchema,
  /** When the event starts: ISO-8601 with an offset, e.g. `2026-06-01T19:00:00+01:00`. */
  starts_at: TimestampSchema,
  /** When the event ends: ISO-8601 with an offset; must be after `starts_at`. */
  ends_at: TimestampSchema,
  /** When the doors open: ISO-8601 with an offset, or `null`. */
  doors_open_at: TimestampSchema.nullable(),
  /** An ISO 4217 code in upper case, e.g. `GBP`; cannot change once the event has tiers. */
  currency: CurrencySchema,
  /** How many people the venue holds (1–10,000,000), or `null`. */
  capacity: z.number().int().positive().max(10_000_000).nullable(),
};

export const EventCreateSchema = z
  .object({
    ...writableEventFields,
    /** Free text about the event, up to 5,000 characters, or `null` (the default). */
    description: writableEventFields.description.optional(),
    /** Where it takes place, up to 500 characters, or `null` (the default). */
    venue: writableEventFields.venue.optional(),
    /** When the doors open: ISO-8601 with an offset, or `null` (the default). */
    doors_open_at: writableEventFields.doors_open_at.optional(),
    /** How many people the venue holds (1–10,000,000), or `null` (the default). */
    capacity: writableEventFields.capacity.optional(),
    /** `draft` (the default) or `published`. */
    status: z.enum(['draft', 'published']).optional(),
  })
  .strict();
export type EventCreate = z.infer<typeof EventCreateSchema>;

export const EventUpdateSchema = z
  .object({
    ...writableEventFields,
    /**
     * A new status: `draft → published → completed`, or `cancelled` from `draft` or `published`;
     * any other change is a 409.
     */
    status: EventStatusSchema,
  })
  .partial()
  .strict();
export type EventUpdate = z.infer<typeof EventUpdateSchema>;

export const EventListQuerySchema = PaginationQuerySchema.extend({
  ...byStatus(EVENT_STATUSES),
  /** Only events starting at or after this time (ISO-8601 or a `Date`). */
  starts_after: timestampParam('starts_after'),
  /** Only events starting before this time (ISO-8601 or a `Date`). */
  starts_before: timestampParam('starts_before'),
  ...sinceUpdated,
  /** Only events whose name contains this text, ignoring case. */
  q: textParam('q'),
});
export type EventListQuery = z.input<typeof EventListQuerySchema>;

export const eventsContract = resourceRouter({
  ...readRoutes({
    path: '/events',
    item: EventSchema,
    query: EventListQuerySchema,
    plural: 'events',
    singular: 'an event',
    description:
      'Ordered by `created_at` then `id`; with `updated_since`, by `updated_at` then `id`. `q` matches names containing the text, ignoring case.',
  }),
  create: createRoute({
    path: '/events',
    item: EventSchema,
    body: EventCreateSchema,
    summary: 'Create an event',
    description:
      'New events are `draft` unless `status` says `published`. `ends_at` must be after `starts_at`.',
  }),
  update: updateRoute({
    path: '/events',
    item: EventSchema,
    body: EventUpdateSchema,
    summary: 'Update an event or change its status',
    description:
      'Any subset of the writable fields. Status changes: draft → published → completed, draft|published → cancelled; anything else is a 409.',
  }),
});
