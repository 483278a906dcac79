import { SourceDetail } from "@/components/sources/source-detail";
import { SourceDebugger } from "@/components/sources/source-debugger";

export default async function SourcePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <SourceDetail id={id}>
      <SourceDebugger sourceId={id} />
    </SourceDetail>
  );
}
