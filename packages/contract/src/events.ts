import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  commonResponses,
  CurrencySchema,
  IdPathSchema,
  itemEnvelope,
  mutationResponses,
  PaginationQuerySchema,
  readRoutes,
  textParam,
  TextSchema,
  timestampParam,
  TimestampSchema,
  TimeZoneSchema,
  writeRoute,
} from './common';
import { byStatus, sinceUpdated } from './list-filters';

const c = initContract();

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

export const EventSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  venue: z.string().nullable(),
  timezone: z.string(),
  starts_at: TimestampSchema,
  ends_at: TimestampSchema,
  doors_open_at: TimestampSchema.nullable(),
  currency: z.string(),
  capacity: z.number().int().nullable(),
  status: EventStatusSchema,
  published_at: TimestampSchema.nullable(),
  cancelled_at: TimestampSchema.nullable(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type Event = z.infer<typeof EventSchema>;

const writableEventFields = {
  name: TextSchema.trim().min(1).max(200),
  description: TextSchema.max(5000).nullable(),
  venue: TextSchema.max(500).nullable(),
  timezone: TimeZoneSchema,
  starts_at: TimestampSchema,
  ends_at: TimestampSchema,
  doors_open_at: TimestampSchema.nullable(),
  currency: CurrencySchema,
  capacity: z.number().int().positive().max(10_000_000).nullable(),
};

export const EventCreateSchema = z
  .object({
    ...writableEventFields,
    description: writableEventFields.description.optional(),
    venue: writableEventFields.venue.optional(),
    doors_open_at: writableEventFields.doors_open_at.optional(),
    capacity: writableEventFields.capacity.optional(),
    status: z.enum(['draft', 'published']).optional(),
  })
  .strict();
export type EventCreate = z.infer<typeof EventCreateSchema>;

export const EventUpdateSchema = z
  .object({ ...writableEventFields, status: EventStatusSchema })
  .partial()
  .strict();
export type EventUpdate = z.infer<typeof EventUpdateSchema>;

export const EventListQuerySchema = PaginationQuerySchema.extend({
  ...byStatus(EVENT_STATUSES),
  starts_after: timestampParam('starts_after'),
  starts_before: timestampParam('starts_before'),
  ...sinceUpdated,
  q: textParam('q'),
});
export type EventListQuery = z.input<typeof EventListQuerySchema>;

export const eventsContract = c.router(
  {
    ...readRoutes({
      path: '/events',
      item: EventSchema,
      query: EventListQuerySchema,
      plural: 'events',
      singular: 'an event',
      description:
        'Ordered by `created_at` then `id`; with `updated_since`, by `updated_at` then `id`. `q` matches names containing the text, ignoring case.',
    }),
    create: {
      method: 'POST',
      path: '/events',
      body: EventCreateSchema,
      responses: { 201: itemEnvelope(EventSchema), ...mutationResponses },
      metadata: writeRoute,
      summary: 'Create an event',
      description:
        'New events are `draft` unless `status` says `published`. `ends_at` must be after `starts_at`.',
    },
    update: {
      method: 'PATCH',
      path: '/events/:id',
      pathParams: IdPathSchema,
      body: EventUpdateSchema,
      responses: { 200: itemEnvelope(EventSchema), ...mutationResponses },
      metadata: writeRoute,
      summary: 'Update an event or change its status',
      description:
        'Any subset of the writable fields. Status changes: draft → published → completed, draft|published → cancelled; anything else is a 409.',
    },
  },
  { commonResponses, strictStatusCodes: true },
);
