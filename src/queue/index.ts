export { isRedisUrl, parseRedisUrl, probeRedis, redactRedisUrl } from "./connection.js";
export { openQueueExecutor, type QueueExecutor, type QueueExecutorOptions } from "./executor.js";
export { inProcessWorkerExecutor } from "./in-process.js";
export {
  ATTEMPT_JOB,
  type AttemptJobData,
  attemptJobId,
  attemptJobSchema,
  DEFAULT_QUEUE_NAME,
} from "./job.js";
export {
  type QueueRateLimit,
  type QueueWorker,
  type QueueWorkerOptions,
  type RunningAttempt,
  startQueueWorker,
} from "./worker.js";
