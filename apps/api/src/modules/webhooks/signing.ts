import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { isSealed, SecretBoxError, type SecretBox } from '../../core/secret-box';

/** A new signing secret: `whsec_` and 32 random bytes in base64 (the Standard Webhooks form). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** How long the previous secret keeps signing after a rotation. */
export const SECRET_OVERLAP_HOURS = 24;

/** An endpoint's secrets, as its row holds them: sealed (or plain, written before encryption). */
export interface EndpointSecrets {
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * A stored secret in plain text: opened with the box, or as written before encryption. Anything
 * else is an error, never a secret to sign with.
 */
export function openSecret(stored: string, box: SecretBox): string {
  if (isSealed(stored)) return box.open(stored);
  if (stored.startsWith('whsec_')) return stored;
  throw new SecretBoxError('the stored secret is neither sealed nor a signing secret');
}

/**
 * The secrets that sign at `now`, opened: the current one, and the previous one during its
 * overlap. Throws (a SecretBoxError) rather than sign with a secret it cannot open.
 */
export function signingSecrets(endpoint: EndpointSecrets, box: SecretBox, now = new Date()) {
  const { secret, previous_secret: previous, previous_secret_expires_at: until } = endpoint;
  const stored =
    previous && until && until.getTime() > now.getTime() ? [secret, previous] : [secret];
  return stored.map((value) => openSecret(value, box));
}

/**
 * Signers by secret, so that the secret's key is decoded once, not at every attempt. Bounded: past
 * `SIGNERS_KEPT` secrets the oldest one is dropped (a rotated-out secret ages out this way).
 */
const signers = new Map<string, Webhook>();
const SIGNERS_KEPT = 1000;

function signerOf(secret: string): Webhook {
  let signer = signers.get(secret);
  if (!signer) {
    signer = new Webhook(secret);
    const oldest = signers.keys().next();
    if (signers.size >= SIGNERS_KEPT && !oldest.done) signers.delete(oldest.value);
    signers.set(secret, signer);
  }
  return signer;
}

/** The Standard Webhooks headers of one attempt, signed with every secret given (newest first). */
export function signedHeaders(
  messageId: string,
  payload: string,
  secrets: readonly string[],
  at: Date = new Date(),
): Record<string, string> {
  const signatures = secrets.map((secret) => signerOf(secret).sign(messageId, at, payload));
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
