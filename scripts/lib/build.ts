import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function newestMtime(p: string): number {
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p, { withFileTypes: true })) {
    if (entry.name === "generated" || entry.name.startsWith(".") || entry.name === "node_modules") continue;
    newest = Math.max(newest, newestMtime(path.join(p, entry.name)));
  }
  return newest;
}

/** A build is needed when there is none, or when the app's sources changed after it. */
export function needsBuild(): boolean {
  const buildId = path.join(root, ".next", "BUILD_ID");
  if (!fs.existsSync(buildId)) return true;
  const built = fs.statSync(buildId).mtimeMs;
  const inputs = ["app", "components", "lib", "next.config.ts", "package.json", "proxy.ts"].map((p) => path.join(root, p));
  return inputs.some((p) => fs.existsSync(p) && newestMtime(p) > built);
}

export function buildIfNeeded(log: (msg: string) => void = console.log): void {
  if (!needsBuild()) return;
  log("building the web app (first run or sources changed)…");
  const r = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  if (r.status !== 0) throw new Error("next build failed");
}
