import { TokensSettings } from "@/components/settings/tokens";

export default function SettingsPage() {
  return <TokensSettings />;
}
