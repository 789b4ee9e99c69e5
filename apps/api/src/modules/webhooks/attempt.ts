import type { SecretBox } from '../../core/secret-box';
import { deliver, type DeliveryResult } from './delivery';
import { signedHeaders, signingSecrets, type EndpointSecrets } from './signing';
import type { UrlPolicy } from './url-guard';

/** One delivery attempt of a message, to be recorded with it. */
export interface Attempt {
  messageId: string;
  endpointId: string;
  at: Date;
  result: DeliveryResult;
  /** The last one allowed: a failure gives the message up. */
  final: boolean;
}

/** Where a message goes: its endpoint's URL and secrets. */
export interface Target extends EndpointSecrets {
  url: string;
}

/** Signs `body` as message `messageId` with the target's secrets of the moment, and sends it. */
export type Send = (
  messageId: string,
  target: Target,
  body: string,
) => Promise<{ at: Date; result: DeliveryResult }>;

export interface SendOptions extends UrlPolicy {
  timeoutMs: number;
  /** Opens the endpoints' stored secrets. */
  secrets: SecretBox;
  /** Each attempt's outcome, for the metrics. */
  onAttempt?: (outcome: 'succeeded' | 'failed') => void;
}

/** The engine's one way of sending, for first attempts and the queue's alike. */
export function sender(options: SendOptions): Send {
  const policy = {
    timeoutMs: options.timeoutMs,
    allowHttp: options.allowHttp,
    allowPrivate: options.allowPrivate,
  };
  return async (messageId, target, body) => {
    const at = new Date();
    const headers = signedHeaders(messageId, body, signingSecrets(target, options.secrets, at), at);
    const result = await deliver(target.url, body, headers, policy);
    options.onAttempt?.(result.ok ? 'succeeded' : 'failed');
    return { at, result };
  };
}
