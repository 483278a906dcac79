import type { Metadata } from "next";
import { TokensSettings } from "@/components/settings/tokens";

export const metadata: Metadata = { title: "Settings" };

export default function SettingsPage() {
  return <TokensSettings />;
}
