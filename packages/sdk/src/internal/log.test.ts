import { describe, expect, it } from 'vitest';
import { recordingLogger } from '../../test/harness';
import { isLogLevel, leveled, type LogLevel } from './log';

const say = (level: LogLevel) => {
  const sink = recordingLogger();
  const logger = leveled(sink, level);
  logger.error('e');
  logger.warn('w');
  logger.info('i');
  logger.debug('d');
  return sink.lines.map((line) => line.message).join('');
};

/** Each level, and the first letters of the levels it writes. */
const LETS_THROUGH = [
  ['off', ''],
  ['error', 'e'],
  ['warn', 'ew'],
  ['info', 'ewi'],
  ['debug', 'ewid'],
] as const;

describe('leveled', () => {
  it.each(LETS_THROUGH)('at %s lets through %j', (level, expected) => {
    expect(say(level)).toBe(expected);
  });

  it.each(LETS_THROUGH)('at %s says it writes %j, as it does', (level, expected) => {
    const logger = leveled(recordingLogger(), level);
    const enabled = (['error', 'warn', 'info', 'debug'] as const)
      .filter((at) => logger.enabled(at))
      .map((at) => at[0])
      .join('');
    expect(enabled).toBe(expected);
    expect(say(level)).toBe(enabled);
  });

  it('keeps the logger as `this` (pino, winston)', () => {
    const lines: string[] = [];
    const pinoLike = {
      prefix: 'app:',
      error(message: string) {
        lines.push(this.prefix + message);
      },
      warn(message: string) {
        lines.push(this.prefix + message);
      },
      info(message: string) {
        lines.push(this.prefix + message);
      },
      debug(message: string) {
        lines.push(this.prefix + message);
      },
    };
    leveled(pinoLike, 'info').info('retrying');
    expect(lines).toEqual(['app:retrying']);
  });
});

describe('isLogLevel', () => {
  it('knows the five levels and nothing else', () => {
    for (const level of ['off', 'error', 'warn', 'info', 'debug'])
      expect(isLogLevel(level)).toBe(true);
    for (const value of ['trace', 'INFO', '', undefined, 3, 'toString', 'constructor']) {
      expect(isLogLevel(value)).toBe(false);
    }
  });
});
