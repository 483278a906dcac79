import type { Metadata } from "next";
import { AlertSettingsCard } from "@/components/alerts/alert-settings";
import { TokensSettings } from "@/components/settings/tokens";

export const metadata: Metadata = { title: "Settings" };

export default function SettingsPage() {
  return (
    <>
      <TokensSettings />
      <AlertSettingsCard />
    </>
  );
}
