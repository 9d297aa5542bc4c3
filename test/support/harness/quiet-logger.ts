import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';

/** A Logger that stays silent (SDK chatter would bury test output) but remembers error messages. */
export class QuietLogger implements Logger {
  /** Error-level messages seen so far, e.g. webpack's report when a bundle fails. */
  readonly errors: string[] = [];

  log(level: LogLevel, message: string, _meta?: LogMetadata): void {
    if (level === 'ERROR') this.errors.push(message);
  }
  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}
