import { defineEntity, p } from '@mikro-orm/core';

/** A person who signs in to the dashboard of one organisation. */
export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.string().primary(),
    organisationId: p.text(),
    /** Lower case; unique across organisations. */
    email: p.text(),
    /** argon2id. */
    passwordHash: p.text(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export class User extends UserSchema.class {}
UserSchema.setClass(User);
