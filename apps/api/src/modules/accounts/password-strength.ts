import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { AppError } from '../../core/errors';

/** zxcvbn's scale: 3 means about 10^8 guesses or more, "safely unguessable" online. */
const MIN_SCORE = 3;

let estimator: Promise<ZxcvbnFactory> | undefined;

/**
 * The estimator, with its dictionaries (several megabytes) loaded on first use rather than at
 * start. Checks are bounded: past 64 characters a password is judged by its first 64, and
 * l33t substitutions are tried at most 4 at a time; unbounded, some 200-character inputs take
 * seconds of CPU.
 */
function loadEstimator(): Promise<ZxcvbnFactory> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common, en] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...en.dictionary },
      graphs: common.adjacencyGraphs,
      translations: en.translations,
      maxLength: 64,
      l33tMaxSubstitutions: 4,
    });
  })();
  estimator.catch(() => (estimator = undefined));
  return estimator;
}

/**
 * Refuses a password that is common or easy to guess (a 400 `weak_password` saying why), judged
 * also against `related` text such as the email and the organisation's name.
 */
export async function assertStrongPassword(
  password: string,
  related: readonly string[] = [],
): Promise<void> {
  const zxcvbn = await loadEstimator();
  const words = related.flatMap((text) => [text, ...text.split(/[^\p{L}\p{N}]+/u)]);
  const result = zxcvbn.check(password, ['boxoffice', ...words.filter(Boolean)]);
  if (result.score >= MIN_SCORE) return;
  const { warning, suggestions } = result.feedback;
  const advice = [warning, ...suggestions].filter(Boolean);
  if (advice.length === 0) advice.push('Add another word or two; uncommon words are better.');
  throw new AppError(400, 'weak_password', `password is too easy to guess. ${advice.join(' ')}`);
}
