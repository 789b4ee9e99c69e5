import type { APIPromise } from '../core/api-promise';
import type { RequestOptions } from '../internal/engine';
import { Resource } from './shared';
import type {
  WebhookEndpoint,
  WebhookEndpointCreateParams,
  WebhookEndpointListParams,
  WebhookEndpointUpdateParams,
  WebhookEndpointWithSecret,
} from './types';

/**
 * The URLs the organisation's changes are pushed to (needs the `write` scope). Its list pages by
 * number and has no sync: `syncCheckpoint` is `undefined` on its pages.
 */
export class WebhookEndpoints extends Resource<
  WebhookEndpoint,
  WebhookEndpointListParams,
  undefined
> {
  /**
   * Registers a URL for some event types (`events`), or all (`['*']`, the default). The answer
   * carries the signing `secret`, this once.
   *
   * @example
   * ```ts
   * const endpoint = await client.webhookEndpoints.create({
   *   url: 'https://crm.example.com/boxoffice',
   *   events: ['order.created', 'checkin.created'],
   * });
   * console.log(endpoint.secret); // whsec_…: store it where the receiver can read it
   * ```
   */
  create(
    body: WebhookEndpointCreateParams,
    options?: RequestOptions,
  ): APIPromise<WebhookEndpointWithSecret> {
    return this.post<WebhookEndpointCreateParams, WebhookEndpointWithSecret>(body, options);
  }

  /**
   * Changes the URL, the event types or the description; `status` disables or enables it.
   *
   * @example
   * ```ts
   * await client.webhookEndpoints.update('we_…', { status: 'disabled' });
   * ```
   */
  update(
    id: string,
    body: WebhookEndpointUpdateParams,
    options?: RequestOptions,
  ): APIPromise<WebhookEndpoint> {
    return this.patch(id, body, options);
  }

  /**
   * Deletes the endpoint; nothing more is sent to it.
   *
   * @example
   * ```ts
   * await client.webhookEndpoints.delete('we_…');
   * ```
   */
  delete(id: string, options?: RequestOptions): APIPromise<{ id: string; deleted: true }> {
    return this.remove(id, options);
  }
}
