import "server-only";
import type { Metadata } from "next";
import { cookies } from "next/headers";
import { SESSION_COOKIE, findSession } from "@/lib/auth/sessions";
import { AppError } from "@/lib/platform/errors";

/**
 * A detail page's <title>: "Orders service · Destinations", or just the section when the resource
 * is not there (an unknown id shows its own not-found message in the page).
 */
export async function titleWithName(section: string, nameOf: (workspaceId: string) => Promise<string>): Promise<Metadata> {
  const session = await findSession((await cookies()).get(SESSION_COOKIE)?.value);
  if (!session) return { title: section };
  try {
    return { title: `${await nameOf(session.workspaceId)} · ${section}` };
  } catch (err) {
    if (err instanceof AppError) return { title: section };
    throw err;
  }
}
