import { Resource } from './shared';
import type { Attendee, AttendeeListParams } from './types';

/** Attendees; `checked_in` filters by presence. */
export class Attendees extends Resource<Attendee, AttendeeListParams> {}
