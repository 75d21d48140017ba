/**
 * The worker Lambda's edge (functions/worker.ts): which errors are acknowledged and which
 * are redelivered. An error marked not retryable cannot succeed on a second delivery; a
 * malformed message must reach the dead-letter queue to be seen.
 */
import { describe, expect, it } from 'vitest';
import { isPermanent } from '../../../functions/worker.js';
import { BundleError, InvalidInputError, MalformedMessageError, NotFoundError, OversizedValueError } from '../../../lib/engine/index.js';

describe('worker edge', () => {
  it('acknowledges errors marked not retryable, redelivers retryable, malformed and unknown ones', () => {
    expect(isPermanent(new NotFoundError('dag d is not in bundle v1'))).toBe(true);
    expect(isPermanent(new InvalidInputError('bad'))).toBe(true);
    expect(isPermanent(new OversizedValueError('too big'))).toBe(true);
    expect(isPermanent(new BundleError('s3 unavailable', { retryable: true }))).toBe(false);
    expect(isPermanent(new MalformedMessageError('not JSON'))).toBe(false);
    expect(isPermanent(new Error('ECONNRESET'))).toBe(false);
    expect(isPermanent({ retryable: false })).toBe(false);
  });
});
