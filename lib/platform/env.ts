import "server-only";
import { z } from "zod";

/** The one place that reads process.env. Parsed lazily so `next build` needs no database. */
const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().url().optional(),
  PORT: z.coerce.number().int().positive().default(3000),
  /** Interface the public port listens on (the ingest server under `npm start`). */
  HOST: z.string().min(1).default("0.0.0.0"),
  /**
   * The web app's internal origin, to which the ingest server passes everything but /v1
   * (docs/architecture.md#processes); unset, the ingest server serves /v1 only.
   */
  EVENTRAIL_WEB_URL: z.string().url().optional(),
  /**
   * The public port, when this process runs behind the ingest server (npm start sets it for the web
   * app and the worker; inside the web app PORT is its internal port): the app's own capture URLs
   * are served there (docs/webhooks.md#outbound-safety). Unset: PORT.
   */
  EVENTRAIL_PUBLIC_PORT: z.coerce.number().int().positive().optional(),
  /**
   * How many requests the ingest server passes to the web app at once; the rest wait their turn
   * (docs/architecture.md#processes). Unset: one fewer than the cores, at least 2.
   */
  EVENTRAIL_WEB_CONCURRENCY: z.coerce.number().int().positive().optional(),
  /**
   * Open connections the public port keeps from one client address, and in all; a new connection
   * over either replaces the oldest one idle for a second or more, or is reset (docs/edge.md#slow-and-greedy-clients).
   */
  EVENTRAIL_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().positive().default(256),
  EVENTRAIL_MAX_CONNECTIONS: z.coerce.number().int().positive().default(10_000),
  /** Operator token for automation; acts on the oldest workspace or X-Eventrail-Workspace. */
  EVENTRAIL_ADMIN_TOKEN: z.string().min(16).optional(),
  /** Allow webhook targets on loopback/private networks (self-hosting, tests). */
  EVENTRAIL_ALLOW_PRIVATE_NETWORKS: z
    .enum(["0", "1", "true", "false"])
    .default("0")
    .transform((v) => v === "1" || v === "true"),
  /** Bearer token Prometheus sends to GET /metrics (the admin token works too); /metrics is never open. */
  EVENTRAIL_METRICS_TOKEN: z.string().min(16).optional(),
  EVENTRAIL_DATA_DIR: z.string().default(".data"),
  /** Presets the one-time first-run setup code (automation, tests); otherwise one is stored in the database. */
  EVENTRAIL_SETUP_CODE: z.preprocess((v) => (v === "" ? undefined : v), z.string().min(16).optional()),
  /**
   * How many reverse proxies in front append to X-Forwarded-For: 0 (default) takes the client address
   * from the socket; 1 takes the right-most X-Forwarded-For entry (the one your proxy added), and so on.
   */
  EVENTRAIL_TRUSTED_PROXIES: z.coerce.number().int().min(0).max(10).default(0),
  /** Public base URL used to show capture URLs and cookies' Secure flag. */
  EVENTRAIL_PUBLIC_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  DB_POOL_MAX: z.coerce.number().int().positive().default(10),
  /**
   * CPU niceness (1–19) for this process's Postgres backends when Postgres runs on this machine;
   * `npm start` sets it for the web app so the dashboard's queries yield to intake
   * (docs/architecture.md#processes). Unset: backends keep the server's priority.
   */
  EVENTRAIL_DB_SESSION_NICENESS: z.coerce.number().int().min(1).max(19).optional(),
  WORKER_CONCURRENCY: z.coerce.number().int().positive().default(64),
  /** First webhook retry delay before jitter; later steps double (shorten it in tests). */
  EVENTRAIL_RETRY_BASE_MS: z.coerce.number().int().positive().default(5_000),
  /** Longest single retry step, and the cap on a receiver's Retry-After. */
  EVENTRAIL_RETRY_MAX_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(30 * 60_000),
  RETENTION_MESSAGES_DAYS: z.coerce.number().positive().default(30),
  RETENTION_ATTEMPTS_DAYS: z.coerce.number().positive().default(30),
  RETENTION_CAPTURES_DAYS: z.coerce.number().positive().default(7),
  /** The audit log's retention in days; unset, the request log's (docs/operations.md#retention). */
  RETENTION_AUDIT_DAYS: z.coerce.number().positive().optional(),
  /**
   * SMTP server for endpoint alert emails (docs/alerts.md#notices) and invitations
   * (docs/management-api.md#invitations), e.g. smtp://user:pass@mail.example.com:587; unset: no email.
   */
  SMTP_URL: z.preprocess((v) => (v === "" ? undefined : v), z.string().url().optional()),
  /** The From of alert and invitation emails. */
  SMTP_FROM: z.string().default("Eventrail <eventrail@localhost>"),
});

export type Env = z.infer<typeof schema>;

let cached: Env | undefined;

export function env(): Env {
  if (!cached) {
    const parsed = schema.safeParse(process.env);
    if (!parsed.success) {
      const fields = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
      throw new Error(`Invalid environment: ${fields}`);
    }
    cached = parsed.data;
  }
  return cached;
}

export function databaseUrl(): string {
  const url = env().DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set (npm start sets it for the embedded Postgres)");
  return url;
}
