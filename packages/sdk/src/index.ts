export { Boxoffice, DEFAULT_BASE_URL, type ClientOptions } from './client';
export { APIPromise, type WithResponse } from './core/api-promise';
export { Page, PagePromise, type ListEnvelope } from './core/pagination';
export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  BoxofficeError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PlanRequiredError,
  RateLimitError,
  UnexpectedResponseError,
  UnprocessableEntityError,
} from './core/errors';
export type { RateLimitClass, RateLimitSnapshot } from './core/rate-limit';
export { DEFAULT_RETRY, type RetryPolicy } from './core/retry';
export type { Clock } from './core/clock';
export type { RequestOptions } from './internal/engine';
export type { CheckinCreateFields } from './resources/types';
export type { Logger, LogLevel } from './internal/log';
export type {
  Event,
  EventCreateParams,
  EventListParams,
  EventUpdateParams,
} from './resources/events';
export type { Tier, TierCreateParams, TierListParams, TierUpdateParams } from './resources/tiers';
export type { Order, OrderListParams } from './resources/orders';
export type { Ticket, TicketListParams } from './resources/tickets';
export type { Attendee, AttendeeListParams } from './resources/attendees';
export type { Checkin, CheckinCreateParams, CheckinListParams } from './resources/checkins';
export type { Payout, PayoutListParams } from './resources/payouts';
export type {
  WebhookEndpoint,
  WebhookEndpointCreateParams,
  WebhookEndpointListParams,
  WebhookEndpointUpdateParams,
  WebhookEndpointWithSecret,
} from './resources/webhook-endpoints';
export {
  Webhooks,
  WebhookVerificationError,
  type UnwrapOptions,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
} from './webhooks';
export type { Events } from './resources/events';
export type { Tiers } from './resources/tiers';
export type { Orders } from './resources/orders';
export type { Tickets } from './resources/tickets';
export type { Attendees } from './resources/attendees';
export type { Checkins } from './resources/checkins';
export type { Payouts } from './resources/payouts';
export type { WebhookEndpoints } from './resources/webhook-endpoints';
