import { defineEntity, p } from '@mikro-orm/core';

/** A signed-in browser. Only the SHA-256 of its cookie token is stored. */
export const UserSessionSchema = defineEntity({
  name: 'UserSession',
  tableName: 'user_sessions',
  properties: {
    id: p.string().primary(),
    userId: p.text(),
    tokenHash: p.text(),
    /** Sent back by the dashboard in `X-CSRF-Token` on state-changing requests. */
    csrfToken: p.text(),
    expiresAt: p.datetime(),
    createdAt: p.datetime(),
  },
});
export class UserSession extends UserSessionSchema.class {}
UserSessionSchema.setClass(UserSession);
