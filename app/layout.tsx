import type { Metadata } from "next";
import { connection } from "next/server";
import "./globals.css";
import { Providers } from "@/components/providers";

export const metadata: Metadata = {
  // Each page names itself ("Destinations · Eventrail"), so tabs, history and screen readers tell pages apart.
  title: { default: "Eventrail", template: "%s · Eventrail" },
  description: "Self-hosted event router with signed, retried webhooks",
};

/**
 * Every page is rendered per request, so that Next can put the request's CSP nonce on its scripts
 * (proxy.ts, docs/dashboard.md#security-headers); a page prerendered at build time would carry none.
 */
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body>
        {/* The first tab stop: past the navigation, straight to the page's content. */}
        <a
          href="#main"
          className="sr-only rounded-md bg-white px-3 py-2 text-sm font-medium text-indigo-700 shadow ring-1 ring-slate-300 focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50"
        >
          Skip to main content
        </a>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
