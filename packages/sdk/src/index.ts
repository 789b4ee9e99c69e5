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
  ExportError,
  ExportExpiredError,
  ExportFailedError,
  ExportFormatError,
  ExportTimeoutError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PlanRequiredError,
  type PermissionDeniedCode,
  RateLimitError,
  UnexpectedResponseError,
  UnprocessableEntityError,
} from './core/errors';
export type { RateLimitClass, RateLimitSnapshot } from './core/rate-limit';
export { DEFAULT_RETRY, type RetryPolicy } from './core/retry';
export type { Clock } from './core/clock';
export type { RequestOptions } from './internal/engine';
export type {
  Attendee,
  AttendeeListParams,
  Checkin,
  CheckinBatchResult,
  CheckinCreateFields,
  CheckinDirection,
  CheckinListParams,
  Event,
  EventCreateParams,
  EventListParams,
  EventStatus,
  EventUpdateParams,
  EventExportFilters,
  TierExportFilters,
  OrderExportFilters,
  TicketExportFilters,
  AttendeeExportFilters,
  CheckinExportFilters,
  PayoutExportFilters,
  Export,
  ExportFormat,
  ExportListParams,
  ExportResource,
  ExportStatus,
  Order,
  OrderListParams,
  OrderStatus,
  PageParams,
  Payout,
  PayoutListParams,
  PayoutStatus,
  Ticket,
  TicketListParams,
  TestDataReset,
  TestOrder,
  TestOrderCreateParams,
  TestPayoutAdvanceParams,
  TicketStatus,
  Tier,
  TierCreateParams,
  TierListParams,
  TierStatus,
  TierUpdateParams,
  WebhookEndpoint,
  WebhookEndpointCreateParams,
  WebhookEndpointListParams,
  WebhookEndpointStatus,
  WebhookEndpointUpdateParams,
  WebhookEndpointWithSecret,
  WritableTierStatus,
} from './resources/types';
export type { CheckinBatchItem, CheckinCreateParams } from './resources/checkins';
export type { Logger, LogLevel } from './internal/log';
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
export type {
  Exports,
  ExportCreateParams,
  ExportFilterParams,
  ExportOf,
  ExportRow,
  ExportRows,
  ExportRowsOptions,
  ExportWaitOptions,
} from './resources/exports';
export type { TestHelpers, TestOrders, TestPayouts } from './resources/test-helpers';
