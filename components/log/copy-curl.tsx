"use client";

import { useState } from "react";
import type { AttemptDetailDto } from "@/lib/request-log/contract";
import { isReservedHeader } from "@/lib/webhooks/rules";
import { ErrorNote } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { revealDestinationValue } from "@/components/destinations/hooks";
import { useCan } from "@/components/layout/role";
import { curlCommand } from "./curl";

/**
 * "Copy as cURL" for an attempt. The log stores custom header values masked (docs/webhooks.md#attempt-log),
 * so the plain copy is masked for everyone; a member who may reveal them (admin) can also copy the
 * command with the destination's current values, each revealed through the audited reveal call.
 */
export function CopyCurl({ attempt }: { attempt: AttemptDetailDto }) {
  const canReveal = useCan("admin");
  const [error, setError] = useState<unknown>(null);
  // The URL it went to: a template's rendering when the destination's URL is a template.
  const request = {
    method: attempt.method,
    url: attempt.sentTo ?? attempt.url,
    headers: attempt.requestHeaders,
    body: attempt.requestBody,
  };
  const custom = Object.keys(attempt.requestHeaders).filter((n) => !isReservedHeader(n));
  const revealed = async () => {
    setError(null);
    const headers = { ...attempt.requestHeaders };
    try {
      for (const name of custom) headers[name] = await revealDestinationValue(attempt.destinationId, { header: name });
    } catch (e) {
      setError(e);
      throw e;
    }
    return curlCommand({ ...request, headers }, { reveal: true });
  };
  return (
    <div className="space-y-1">
      <div className="flex flex-wrap gap-2">
        <CopyButton value={curlCommand(request, { reveal: false })} label="Copy as cURL" />
        {canReveal && custom.length > 0 && attempt.destinationName !== null ? (
          <CopyButton value={revealed} label="Copy as cURL with header values" />
        ) : null}
      </div>
      <ErrorNote error={error} />
    </div>
  );
}
