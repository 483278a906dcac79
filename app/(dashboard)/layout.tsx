import { requirePageSession } from "@/lib/auth/current";
import { Nav } from "@/components/layout/nav";
import { AlertNotice } from "@/components/alerts/alert-banner";
import { RoleProvider } from "@/components/layout/role";
import { RouteFocus } from "@/components/layout/route-focus";
import { WorkspaceSwitcher } from "@/components/layout/workspace-switcher";
import { listUserWorkspaces } from "@/lib/auth/account";

export const dynamic = "force-dynamic";

/** Every dashboard page is behind a session; a logged-out visit lands on the login page. */
export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const session = await requirePageSession();
  const workspaces = await listUserWorkspaces(session.userId);
  return (
    <div className="flex h-full flex-col md:flex-row">
      <Nav
        email={session.email}
        role={session.role}
        workspaces={<WorkspaceSwitcher current={session.workspaceId} workspaces={workspaces} />}
      />
      {/* tabIndex -1: the skip link moves focus here, so the next Tab continues inside the page. */}
      {/* relative: visually hidden (absolute) text inside wide tables stays clipped here instead of widening the page. */}
      <main id="main" tabIndex={-1} className="relative min-h-0 min-w-0 flex-1 overflow-y-auto focus:outline-none">
        <div className="mx-auto max-w-6xl px-4 py-6 sm:px-6 md:px-8 md:py-8">
          <RoleProvider role={session.role}>
            <RouteFocus />
            <AlertNotice userId={session.userId} />
            {children}
          </RoleProvider>
        </div>
      </main>
    </div>
  );
}
