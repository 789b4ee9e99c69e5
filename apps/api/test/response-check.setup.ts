import { afterEach, expect } from 'vitest';
import { takeViolations } from './response-recorder';

// A response that the OpenAPI document does not describe fails the test that provoked it.
afterEach(async () => {
  expect(await takeViolations(), 'responses the OpenAPI document does not describe').toEqual([]);
});
