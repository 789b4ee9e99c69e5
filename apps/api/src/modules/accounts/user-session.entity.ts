import { defineEntity, p } from '@mikro-orm/core';
import { CreatedEntity, primaryId } from '../../db/base.entity';

/** A signed-in browser. Only the SHA-256 of its cookie token is stored. */
export const UserSessionSchema = defineEntity({
  name: 'UserSession',
  tableName: 'user_sessions',
  extends: CreatedEntity,
  properties: {
    id: primaryId('session'),
    userId: p.text(),
    tokenHash: p.text(),
    /** Sent back by the dashboard in `X-CSRF-Token` on state-changing requests. */
    csrfToken: p.text(),
    expiresAt: p.datetime(),
  },
});
export class UserSession extends UserSessionSchema.class {}
UserSessionSchema.setClass(UserSession);
