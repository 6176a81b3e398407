export { errorReporter, type ErrorHandler } from './error-reporter.js';
export { raceWithTimeout, timedOut, type TimerSource } from './race-with-timeout.js';
export { ShutdownDeadline, shutdownWaitMs, type DeadlineClock } from './shutdown-deadline.js';
