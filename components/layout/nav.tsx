"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { api } from "@/lib/client/api";

const LINKS = [
  { href: "/overview", label: "Overview" },
  { href: "/sources", label: "Sources" },
  { href: "/destinations", label: "Destinations" },
  { href: "/log", label: "Request log" },
  { href: "/capture", label: "Capture URLs" },
  { href: "/audiences", label: "Audiences" },
  { href: "/deletions", label: "Deletions" },
  { href: "/settings", label: "Settings" },
];

export function Nav({ email }: { email: string }) {
  const pathname = usePathname();
  const router = useRouter();
  return (
    <nav className="flex h-full w-56 shrink-0 flex-col border-r border-slate-200 bg-white" aria-label="Main">
      <div className="flex items-center gap-2 px-4 py-4">
        <div className="flex h-7 w-7 items-center justify-center rounded-md bg-indigo-600 text-sm font-bold text-white">e</div>
        <span className="font-semibold">Eventrail</span>
      </div>
      <ul className="flex-1 space-y-0.5 px-2">
        {LINKS.map((l) => {
          const active = pathname === l.href || pathname.startsWith(`${l.href}/`);
          return (
            <li key={l.href}>
              <Link
                href={l.href}
                aria-current={active ? "page" : undefined}
                className={`block rounded-md px-3 py-1.5 text-sm ${active ? "bg-indigo-50 font-medium text-indigo-700" : "text-slate-600 hover:bg-slate-50 hover:text-slate-900"}`}
              >
                {l.label}
              </Link>
            </li>
          );
        })}
      </ul>
      <div className="border-t border-slate-200 px-4 py-3 text-xs text-slate-500">
        <div className="truncate" title={email}>{email}</div>
        <button
          type="button"
          className="mt-1 text-indigo-600 hover:underline"
          onClick={async () => {
            await api("/api/auth/logout", { method: "POST" });
            router.replace("/login");
            router.refresh();
          }}
        >
          Log out
        </button>
      </div>
    </nav>
  );
}
