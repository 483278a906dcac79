import type { Metadata } from "next";
import { SettingsView } from "@/components/settings/settings";
import { requirePageSession } from "@/lib/auth/current";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  const session = await requirePageSession();
  return <SettingsView email={session.email} />;
}
