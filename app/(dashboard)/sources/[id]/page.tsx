import type { Metadata } from "next";
import { SourceDetail } from "@/components/sources/source-detail";
import { SourceDebugger } from "@/components/sources/source-debugger";
import { getSource } from "@/lib/sources/sources";
import { titleWithName } from "../../titles";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return titleWithName("Sources", async (workspaceId) => (await getSource({ workspaceId, id })).name);
}

export default async function SourcePage({ params }: Props) {
  const { id } = await params;
  return (
    <SourceDetail id={id}>
      <SourceDebugger sourceId={id} />
    </SourceDetail>
  );
}
