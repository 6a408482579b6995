import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string, name = 'broadsheet'): Logger {
  return pino({ name, level });
}
