import { requirePageSession } from "@/lib/auth/current";
import { Nav } from "@/components/layout/nav";

export const dynamic = "force-dynamic";

/** Every dashboard page is behind a session; a logged-out visit lands on the login page. */
export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const session = await requirePageSession();
  return (
    <div className="flex h-full">
      <Nav email={session.email} />
      <main className="min-w-0 flex-1 overflow-y-auto">
        <div className="mx-auto max-w-6xl px-8 py-8">{children}</div>
      </main>
    </div>
  );
}
