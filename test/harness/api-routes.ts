/** Every Management API route and its methods, found from the app/api folder (route.ts files). */
import fs from "node:fs";
import path from "node:path";
import { root } from "../../scripts/lib/build";

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** `endpointRef`: the contract endpoint the handler is bound to, as written (`sourceEndpoints.list`). */
export type RouteMethod = { key: string; method: string; route: string; endpointRef?: string };

export function discoverApiRoutes(): RouteMethod[] {
  const out: RouteMethod[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === "route.ts") {
        const route = `/${path.relative(path.join(root, "app"), dir).split(path.sep).join("/")}`;
        const src = fs.readFileSync(p, "utf8");
        for (const m of METHODS) {
          if (!new RegExp(`export\\s+(const|async\\s+function|function)\\s+${m}\\b`).test(src)) continue;
          const bound = new RegExp(`export\\s+const\\s+${m}\\s*=\\s*(?:apiRoute|publicRoute)\\(\\s*(\\w+\\.\\w+)`).exec(src);
          out.push({ key: `${m} ${route}`, method: m, route, endpointRef: bound?.[1] });
        }
      }
    }
  };
  walk(path.join(root, "app", "api"));
  return out.sort((a, b) => a.key.localeCompare(b.key));
}
