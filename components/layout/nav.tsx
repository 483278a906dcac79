"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { useLogoutMutation } from "@/components/auth/hooks";
import { roleAllows, type Role } from "@/lib/api/access";

const LINKS = [
  { href: "/overview", label: "Overview" },
  { href: "/sources", label: "Sources" },
  { href: "/destinations", label: "Destinations" },
  { href: "/tracking-plans", label: "Tracking plans" },
  { href: "/log", label: "Request log" },
  { href: "/capture", label: "Capture URLs" },
  { href: "/audiences", label: "Audiences" },
  { href: "/deletions", label: "Deletions" },
  { href: "/audit", label: "Audit log", needs: "admin" as const },
  { href: "/settings", label: "Settings" },
  { href: "/api-reference", label: "API reference" },
];

function Logo() {
  return (
    <div className="flex items-center gap-2">
      <div aria-hidden className="flex h-7 w-7 items-center justify-center rounded-md bg-indigo-600 text-sm font-bold text-on-accent">
        e
      </div>
      <span className="font-semibold">Eventrail</span>
    </div>
  );
}

/**
 * The sidebar from md up; below that a top bar whose "Menu" button discloses the same links
 * (aria-expanded; Escape closes and gives focus back to the button; following a link closes it).
 */
export function Nav({ email, role, workspaces }: { email: string; role: Role; workspaces: React.ReactNode }) {
  const pathname = usePathname();
  const router = useRouter();
  const logout = useLogoutMutation();
  const [open, setOpen] = useState(false);
  const canAudit = roleAllows(role, "admin");
  const menuButton = useRef<HTMLButtonElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new page closes the menu
  useEffect(() => setOpen(false), [pathname]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      menuButton.current?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open]);

  return (
    <>
      {/* The phone's top bar is the page's banner landmark, so nothing on screen sits outside a landmark (axe region). */}
      <header className="flex shrink-0 items-center justify-between border-b border-slate-200 bg-white px-4 py-2 md:hidden">
        <Logo />
        <button
          ref={menuButton}
          type="button"
          aria-expanded={open}
          aria-controls="main-nav"
          onClick={() => setOpen((o) => !o)}
          className="inline-flex items-center gap-2 rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50"
        >
          <svg aria-hidden viewBox="0 0 20 20" className="h-4 w-4" fill="currentColor">
            {open ? (
              <path d="M5.3 4.3a1 1 0 0 1 1.4 0L10 7.6l3.3-3.3a1 1 0 1 1 1.4 1.4L11.4 9l3.3 3.3a1 1 0 0 1-1.4 1.4L10 10.4l-3.3 3.3a1 1 0 0 1-1.4-1.4L8.6 9 5.3 5.7a1 1 0 0 1 0-1.4Z" />
            ) : (
              <path d="M3 5a1 1 0 0 1 1-1h12a1 1 0 1 1 0 2H4a1 1 0 0 1-1-1Zm0 5a1 1 0 0 1 1-1h12a1 1 0 1 1 0 2H4a1 1 0 0 1-1-1Zm1 4a1 1 0 1 0 0 2h12a1 1 0 1 0 0-2H4Z" />
            )}
          </svg>
          Menu
        </button>
      </header>
      <nav
        id="main-nav"
        aria-label="Main"
        className={`${open ? "flex" : "hidden"} max-h-[70vh] shrink-0 flex-col overflow-y-auto border-b border-slate-200 bg-white md:flex md:h-full md:max-h-none md:w-56 md:border-r md:border-b-0`}
      >
        <div className="hidden px-4 py-4 md:block">
          <Logo />
        </div>
        <ul className="flex-1 space-y-0.5 px-2 py-2 md:py-0">
          {LINKS.filter((l) => !("needs" in l) || canAudit).map((l) => {
            const active = pathname === l.href || pathname.startsWith(`${l.href}/`);
            return (
              <li key={l.href}>
                <Link
                  href={l.href}
                  aria-current={active ? "page" : undefined}
                  className={`block rounded-md px-3 py-2 text-sm md:py-1.5 ${active ? "bg-indigo-50 font-medium text-indigo-700" : "text-slate-600 hover:bg-slate-50 hover:text-slate-900"}`}
                >
                  {l.label}
                </Link>
              </li>
            );
          })}
        </ul>
        <div className="border-t border-slate-200 px-4 py-3 text-xs text-slate-500">
          {workspaces}
          <div className="truncate" title={email}>
            {email} · {role}
          </div>
          <button
            type="button"
            className="mt-1 text-indigo-700 hover:underline"
            onClick={async () => {
              await logout.mutateAsync();
              router.replace("/login");
              router.refresh();
            }}
          >
            Log out
          </button>
        </div>
      </nav>
    </>
  );
}
