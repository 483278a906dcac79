import { defineConfig } from "prisma/config";

// The CLI only needs the URL for commands that talk to a database; `prisma generate` does not.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/eventrail" },
});
