import type { Metadata } from "next";
import Link from "next/link";
import { AuthShell } from "@/components/auth/auth-shell";

export const metadata: Metadata = { title: "Page not found" };

/** Any address the app does not know, and any resource page whose resource is gone. */
export default function NotFound() {
  return (
    <AuthShell title="Page not found" subtitle="There is nothing at this address: it may have been deleted, or the link is mistyped.">
      <div className="space-y-3 text-sm">
        <Link
          href="/overview"
          className="block w-full rounded-md bg-indigo-600 px-3 py-2 text-center font-semibold text-on-accent hover:bg-indigo-500"
        >
          Go to the overview
        </Link>
        <p className="text-center text-slate-500">
          Or open the{" "}
          <Link href="/log" className="text-indigo-700 underline">
            request log
          </Link>{" "}
          or your{" "}
          <Link href="/destinations" className="text-indigo-700 underline">
            destinations
          </Link>
          .
        </p>
      </div>
    </AuthShell>
  );
}
