import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity, primaryId } from '../../db/base.entity';

/** A person who signs in to the dashboard of one organisation. */
export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  extends: BaseEntity,
  properties: {
    id: primaryId('user'),
    organisationId: p.text().index('users_organisation_id_index'),
    /** Lower case; unique across organisations. */
    email: p.text().unique('users_email_unique'),
    /** argon2id. */
    passwordHash: p.text(),
  },
});
export class User extends UserSchema.class {}
UserSchema.setClass(User);
