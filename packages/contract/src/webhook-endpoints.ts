import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  commonResponses,
  ErrorSchema,
  IdPathSchema,
  itemEnvelope,
  mutationResponses,
  NoQuerySchema,
  PaginationQuerySchema,
  TextSchema,
  TimestampSchema,
  writeRoute,
} from './common';
import { mode } from './resource-schema';

const c = initContract();

/**
 * What a webhook endpoint can subscribe to: every create and update of the API's resources, named
 * `<object>.<created|updated>`. Check-ins are append-only, so there is no `checkin.updated`.
 */
export const WEBHOOK_EVENT_TYPES = [
  'event.created',
  'event.updated',
  'tier.created',
  'tier.updated',
  'order.created',
  'order.updated',
  'ticket.created',
  'ticket.updated',
  'attendee.created',
  'attendee.updated',
  'checkin.created',
  'payout.created',
  'payout.updated',
] as const;
export const WebhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema>;

/** Sent only on request (the dashboard's "Send test event"), whatever the endpoint subscribes to. */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';

/** `*` subscribes to every type, present and future. */
export const WebhookSubscriptionSchema = z.union([WebhookEventTypeSchema, z.literal('*')]);

/** Tells the document a URL is one (`format: uri`): the server checks it with its own rules. */
function asUri<S extends z.ZodString>(schema: S): S {
  return Object.assign(schema, { metaOpenApi: { format: 'uri' } });
}

export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export const WebhookEndpointStatusSchema = z.enum(WEBHOOK_ENDPOINT_STATUSES);

export const WebhookEndpointSchema = z.object({
  /** The endpoint's id, `we_…`. */
  id: z.string(),
  /** Where changes are sent: an https URL that accepts POST requests. */
  url: asUri(z.string()),
  /** A note of the organisation's on what the endpoint is for. */
  description: z.string().nullable(),
  /** The event types sent to it, or `["*"]` for every type. */
  events: z.array(WebhookSubscriptionSchema),
  /** `enabled`, or `disabled` (nothing is sent). */
  status: WebhookEndpointStatusSchema,
  /** Why the endpoint is disabled: by request, or after failing for about three days. */
  disabled_reason: z
    .string()
    .nullable()
    .describe('Why the endpoint is disabled: by request, or after failing for about three days'),
  ...mode,
  /** When the endpoint was registered. */
  created_at: TimestampSchema,
  /** When the endpoint was last changed. */
  updated_at: TimestampSchema,
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

export const WebhookEndpointWithSecretSchema = WebhookEndpointSchema.extend({
  /** The signing secret (`whsec_…`): shown when the endpoint is created; keep it safe. */
  secret: z
    .string()
    .describe('The signing secret (`whsec_…`): shown when the endpoint is created, keep it safe'),
});
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecretSchema>;

const events = z
  .array(WebhookSubscriptionSchema)
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length + 1)
  .describe('Event types to receive, or `["*"]` for all');
const url = asUri(z.string().min(1).max(2048).describe('An https URL that accepts POST requests'));
const description = TextSchema.max(500).nullable();

export const WebhookEndpointCreateSchema = z
  .object({
    /** An https URL that accepts POST requests. */
    url,
    /** Event types to receive, or `["*"]` (the default) for all. */
    events: events.optional(),
    /** A note on what the endpoint is for. */
    description: description.optional(),
  })
  .strict();
export type WebhookEndpointCreate = z.infer<typeof WebhookEndpointCreateSchema>;

export const WebhookEndpointUpdateSchema = z
  .object({
    /** A new https URL. */
    url,
    /** The event types to receive from now on, or `["*"]` for all. */
    events,
    /** A new note, or `null` for none. */
    description,
    /** `disabled` stops the deliveries; `enabled` starts them again. */
    status: WebhookEndpointStatusSchema,
  })
  .partial()
  .strict();
export type WebhookEndpointUpdate = z.infer<typeof WebhookEndpointUpdateSchema>;

export const WebhookEndpointListQuerySchema = PaginationQuerySchema.omit({ cursor: true });
export type WebhookEndpointListQuery = z.input<typeof WebhookEndpointListQuerySchema>;

export const DeletedSchema = z.object({
  /** The id of the object deleted. */
  id: z.string(),
  /** Always `true`. */
  deleted: z.literal(true),
});

/** What a receiver gets: one change of one object, as the API renders it. */
export const WebhookEventSchema = z.object({
  /** The message id, also sent as `webhook-id`: the same on every retry. */
  id: z.string(),
  /** The event type, e.g. `checkin.created`. */
  type: z.string(),
  /** When the change was committed (ISO-8601, UTC). */
  created_at: TimestampSchema,
  /** `true` for a change of live data, `false` for one of test data (as `data.object.livemode`). */
  livemode: z.boolean(),
  /** What changed. */
  data: z.object({
    /** The object as the API renders it after the change. */
    object: z.record(z.unknown()),
  }),
});

export const webhookEndpointsContract = c.router(
  {
    list: {
      method: 'GET',
      path: '/webhook_endpoints',
      query: WebhookEndpointListQuerySchema,
      responses: {
        200: z.object({
          data: z.array(WebhookEndpointSchema).describe("This page's endpoints, oldest first."),
          total: z.number().int().nonnegative().describe('How many endpoints there are.'),
          page: z.number().int().positive().describe("This page's number, from 1."),
          limit: z.number().int().positive().describe('The most endpoints a page holds, as asked.'),
        }),
      },
      metadata: writeRoute,
      summary: 'List webhook endpoints',
      description: 'Ordered by `created_at` then `id`. Needs the `write` scope.',
    },
    get: {
      method: 'GET',
      path: '/webhook_endpoints/:id',
      pathParams: IdPathSchema,
      query: NoQuerySchema,
      responses: { 200: itemEnvelope(WebhookEndpointSchema), 404: ErrorSchema },
      metadata: writeRoute,
      summary: 'Get a webhook endpoint',
      description: 'A webhook endpoint by its id; one of another organisation is a 404.',
    },
    create: {
      method: 'POST',
      path: '/webhook_endpoints',
      body: WebhookEndpointCreateSchema,
      responses: { 201: itemEnvelope(WebhookEndpointWithSecretSchema), ...mutationResponses },
      metadata: writeRoute,
      summary: 'Create a webhook endpoint',
      description:
        'The answer carries the signing `secret`, once. The URL must be https and reach a public address (422 otherwise). At most 20 endpoints per organisation.',
    },
    update: {
      method: 'PATCH',
      path: '/webhook_endpoints/:id',
      pathParams: IdPathSchema,
      body: WebhookEndpointUpdateSchema,
      responses: { 200: itemEnvelope(WebhookEndpointSchema), ...mutationResponses },
      metadata: writeRoute,
      summary: 'Update a webhook endpoint',
      description:
        '`status: "disabled"` stops deliveries; `"enabled"` resumes them (and clears `disabled_reason`).',
    },
    delete: {
      method: 'DELETE',
      path: '/webhook_endpoints/:id',
      pathParams: IdPathSchema,
      body: c.noBody(),
      responses: { 200: itemEnvelope(DeletedSchema), 404: ErrorSchema },
      metadata: writeRoute,
      summary: 'Delete a webhook endpoint',
      description: 'Its messages and their attempts are deleted with it; nothing more is sent.',
    },
  },
  { commonResponses, strictStatusCodes: true },
);
