import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../core/errors';
import { transaction } from '../../db/driver';
import { iso } from '../../core/iso-time';
import type { Organisation } from '../organisations/organisation.entity';
import { createOrganisation, getOrganisation } from '../organisations/organisation.service';
import { assertStrongPassword } from './password-strength';
import { UserSession } from './user-session.entity';
import { User } from './user.entity';

/** argon2 (a native module) is loaded on first use: the API's requests never hash passwords. */
const argon2 = () => import('@node-rs/argon2');

/** Sessions last two weeks from sign-in. */
export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

export const toUserView = (user: User) => ({
  id: user.id,
  email: user.email,
  created_at: iso(user.createdAt),
});

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A well-formed hash of no password: verifying against it costs what a real check costs. */
let decoyHash: Promise<string> | undefined;

/** A new organisation (on the free plan) and its first user; a guessable password is refused. */
export async function signUp(
  em: EntityManager,
  input: { organisationName: string; email: string; password: string },
): Promise<{ user: User; organisation: Organisation }> {
  const email = input.email.trim().toLowerCase();
  await assertStrongPassword(input.password, [email, input.organisationName]);
  const passwordHash = await (await argon2()).hash(input.password);
  return transaction(em, async (tx) => {
    if (await tx.findOne(User, { email })) {
      throw new AppError(
        409,
        'email_taken',
        'An account with this email already exists; sign in instead',
      );
    }
    const organisation = await createOrganisation(tx, {
      name: input.organisationName,
      plan: 'free',
    });
    const user = tx.create(User, { organisationId: organisation.id, email, passwordHash });
    return { user, organisation };
  });
}

/** A user for an existing organisation (operator CLI and the demo); same password rule. */
export async function createUser(
  em: EntityManager,
  input: { organisationId: string; email: string; password: string },
): Promise<User> {
  const email = input.email.trim().toLowerCase();
  await assertStrongPassword(input.password, [email]);
  if (await em.findOne(User, { email })) {
    throw new AppError(409, 'email_taken', 'An account with this email already exists');
  }
  await getOrganisation(em, input.organisationId);
  const user = em.create(User, {
    organisationId: input.organisationId,
    email,
    passwordHash: await (await argon2()).hash(input.password),
  });
  await em.flush();
  return user;
}

/**
 * The user with this email and password, or null. An unknown email costs the same argon2
 * verification as a wrong password, so response times do not reveal which emails have accounts.
 */
export async function checkPassword(
  em: EntityManager,
  email: string,
  password: string,
): Promise<User | null> {
  const user = await em.findOne(User, { email: email.trim().toLowerCase() });
  const { hash, verify } = await argon2();
  decoyHash ??= hash(randomBytes(16).toString('hex'));
  const ok = await verify(user?.passwordHash ?? (await decoyHash), password);
  return user && ok ? user : null;
}

/** Opens a session; the token goes in the cookie and is never stored. */
export async function openSession(
  em: EntityManager,
  userId: string,
): Promise<{ token: string; session: UserSession }> {
  const token = randomBytes(32).toString('base64url');
  const now = new Date();
  const session = em.create(UserSession, {
    userId,
    tokenHash: sha256(token),
    csrfToken: randomBytes(24).toString('base64url'),
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
  });
  await em.flush();
  return { token, session };
}

export interface ActiveSession {
  session: UserSession;
  user: User;
  organisation: Organisation;
}

/** The live session of a cookie token, with its user and organisation; null if none. */
export async function findSession(em: EntityManager, token: string): Promise<ActiveSession | null> {
  const session = await em.findOne(UserSession, {
    tokenHash: sha256(token),
    expiresAt: { $gt: new Date() },
  });
  if (!session) return null;
  const user = await em.findOne(User, { id: session.userId });
  if (!user) return null;
  return { session, user, organisation: await getOrganisation(em, user.organisationId) };
}

export async function closeSession(em: EntityManager, token: string): Promise<void> {
  await em.nativeDelete(UserSession, { tokenHash: sha256(token) });
}
