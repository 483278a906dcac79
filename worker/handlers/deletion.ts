import { QUEUES } from "../../lib/platform/queue";
import { runDeletionRequest } from "../../lib/deletions/run";
import { jobHandler } from "../handler";

/** Runs deletion requests one at a time: they are rare, and each holds per-user locks. */
export const deletionHandler = jobHandler("deletion", { batchSize: 1 }, (data, job) =>
  runDeletionRequest({
    deletionRequestId: data.deletionRequestId,
    jobId: job.id,
    lastAttempt: job.retryCount >= QUEUES.deletion.options.retryLimit,
  }),
);
