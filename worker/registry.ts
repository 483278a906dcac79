import type { Handler } from "./handler";
import { audienceScheduleHandler, audienceSyncHandler } from "./handlers/audience-sync";
import { deletionHandler } from "./handlers/deletion";
import { backfillHandler } from "./handlers/backfill";
import { deliverBackfillHandler, deliverHandler, deliverRetryHandler } from "./handlers/deliver";
import { endpointAlertsHandler } from "./handlers/endpoint-alerts";
import { maintenanceHandler } from "./handlers/maintenance";
import { orderHoldsHandler } from "./handlers/order-holds";

/**
 * Every queue handler the worker runs, one file each in worker/handlers/.
 * Add a handler here when you add a queue to lib/platform/queue.ts.
 */
export const handlers: Handler[] = [
  // The retry lane first: the fresh lane's batches wake it (lib/delivery/lanes.ts).
  deliverRetryHandler,
  deliverHandler,
  deliverBackfillHandler,
  backfillHandler,
  audienceSyncHandler,
  audienceScheduleHandler,
  deletionHandler,
  maintenanceHandler,
  endpointAlertsHandler,
  orderHoldsHandler,
];
