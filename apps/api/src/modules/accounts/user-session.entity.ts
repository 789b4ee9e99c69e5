import { defineEntity, p } from '@mikro-orm/core';
import { CreatedEntity, primaryId } from '../../db/base.entity';

/** A signed-in browser. Only the SHA-256 of its cookie token is stored. */
export const UserSessionSchema = defineEntity({
  name: 'UserSession',
  tableName: 'user_sessions',
  extends: CreatedEntity,
  properties: {
    id: primaryId('session'),
    userId: p.text().index('user_sessions_user_id_index'),
    tokenHash: p.text().unique('user_sessions_token_hash_unique'),
    /** Sent back by the dashboard in `X-CSRF-Token` on state-changing requests. */
    csrfToken: p.text(),
    expiresAt: p.datetime(),
  },
});
export class UserSession extends UserSessionSchema.class {}
UserSessionSchema.setClass(UserSession);
