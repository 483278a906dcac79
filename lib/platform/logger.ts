import "server-only";
import pino from "pino";
import { env } from "./env";

/** Paths whose values never reach a log line: credentials and customer header values. */
export const REDACT_PATHS = [
  "writeKey",
  "*.writeKey",
  "sharedSecret",
  "*.sharedSecret",
  "standardSecret",
  "*.standardSecret",
  "previousSharedSecret",
  "*.previousSharedSecret",
  "previousStandardSecret",
  "*.previousStandardSecret",
  "password",
  "*.password",
  "token",
  "*.token",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "headers.cookie",
  "req.headers.authorization",
  "req.headers.cookie",
  "*.headers[*].value",
  "headers[*].value",
  "secret",
  "*.secret",
];

let instance: pino.Logger | undefined;

export function logger(): pino.Logger {
  if (!instance) {
    instance = pino({
      level: env().LOG_LEVEL,
      base: { pid: process.pid, service: process.env.EVENTRAIL_PROCESS ?? "web" },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    });
  }
  return instance;
}
