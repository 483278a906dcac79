"use client";

import { ChoiceGroup } from "@/components/ui/choice-group";
import Link from "next/link";
import { useState } from "react";
import { MESSAGE_TYPES } from "@/lib/webhooks/payload";
import { samplePayload } from "@/lib/destinations/samples";
import { Button } from "@/components/ui/button";
import { Card, ErrorNote } from "@/components/ui/card";
import { inputClass } from "@/components/ui/field";
import { selectClass } from "@/components/ui/format";
import { useCaptureBins, useCreateCaptureBinMutation } from "@/components/capture/hooks";
import { useDestinations, useTestSendMutation } from "./hooks";
import { TestResult } from "./test-result";
import { focusWhenPresent } from "@/components/ui/focus";

type MessageType = (typeof MESSAGE_TYPES)[number];
const sampleText = (t: MessageType) => JSON.stringify(samplePayload(t), null, 2);

/**
 * "Send a test event": any of the seven types with an editable sample, signed as the destination
 * signs real events, sent to its URLs or to a capture URL; the attempts come back inline.
 * On a capture URL's page the target is fixed and the destination (whose signing is used) is chosen.
 */
export function TestSendPanel({ destinationId, captureUrl }: { destinationId?: string; captureUrl?: string }) {
  const [type, setType] = useState<MessageType>("track");
  const [payload, setPayload] = useState(() => sampleText("track"));
  const [target, setTarget] = useState<"destination" | "capture">(captureUrl ? "capture" : "destination");
  const [binUrl, setBinUrl] = useState("");
  const [chosenDestination, setChosenDestination] = useState("");
  const [jsonError, setJsonError] = useState<string | null>(null);
  const destinations = useDestinations({ enabled: !destinationId });
  const bins = useCaptureBins({ enabled: !captureUrl });
  const destId = destinationId ?? (chosenDestination || destinations.data?.[0]?.id || "");
  const url = captureUrl ?? (target === "capture" ? binUrl || bins.data?.[0]?.url || "" : undefined);

  const createBin = useCreateCaptureBinMutation();
  const newBin = () =>
    createBin.mutate(undefined, {
      onSuccess: (b) => {
        setBinUrl(b.url);
        setTarget("capture");
        // Focus goes to the picker, which now shows the new capture URL.
        focusWhenPresent(() => document.querySelector<HTMLElement>('select[aria-label="Capture URL"]'));
      },
    });
  const send = useTestSendMutation();

  const submit = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch (e) {
      setJsonError(`The payload is not valid JSON: ${(e as Error).message}`);
      return;
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
      setJsonError("The payload must be a JSON object");
      return;
    }
    setJsonError(null);
    send.mutate(
      { destinationId: destId, input: { type, payload: parsed as Record<string, unknown>, ...(url ? { url } : {}) } },
      // Focus goes to what came back, so the result is read out and the next Tab is inside it.
      { onSuccess: () => focusWhenPresent(() => document.querySelector<HTMLElement>('section[aria-label="Test result"]')) },
    );
  };

  return (
    <Card className="p-5">
      <h2 className="text-sm font-semibold text-slate-900">Send a test event</h2>
      <p className="mt-1 text-xs text-slate-500">
        Signed and shaped exactly like a real delivery; it appears in the request log and is never retried.
      </p>

      {!destinationId ? (
        <div className="mt-4 space-y-1">
          <label htmlFor="test-destination" className="block text-sm font-medium text-slate-700">
            Sign as destination
          </label>
          {destinations.data?.length === 0 ? (
            <p className="text-sm text-slate-500">
              Test events are signed with a destination&apos;s secret and headers.{" "}
              <Link href="/destinations/new" className="text-indigo-700 underline">
                Create a destination
              </Link>{" "}
              first.
            </p>
          ) : (
            <select id="test-destination" className={selectClass} value={destId} onChange={(e) => setChosenDestination(e.target.value)}>
              {destinations.data?.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </select>
          )}
        </div>
      ) : null}

      <div className="mt-4">
        <ChoiceGroup
          label="Event type"
          labelVisible
          variant="separate"
          options={MESSAGE_TYPES.map((t) => ({ value: t, label: t }))}
          value={type}
          onChange={(t) => {
            setType(t);
            setPayload(sampleText(t));
            setJsonError(null);
          }}
        />
      </div>

      <div className="mt-4 space-y-1">
        <div className="flex items-center justify-between">
          <label htmlFor="test-payload" className="block text-sm font-medium text-slate-700">
            Payload (JSON)
          </label>
          <button type="button" className="text-xs text-indigo-700 hover:underline" onClick={() => setPayload(sampleText(type))}>
            Reset sample
          </button>
        </div>
        <textarea
          id="test-payload"
          rows={12}
          spellCheck={false}
          value={payload}
          aria-invalid={!!jsonError}
          aria-describedby={jsonError ? "test-payload-error" : "test-payload-hint"}
          onChange={(e) => setPayload(e.target.value)}
          className={`${inputClass} font-mono text-xs`}
        />
        {jsonError ? (
          <p id="test-payload-error" role="alert" className="text-xs text-red-600">
            {jsonError}
          </p>
        ) : (
          <p id="test-payload-hint" className="text-xs text-slate-500">
            A Segment-style call; messageId, timestamps and the webhook shape are filled in as for real events.
          </p>
        )}
      </div>

      {!captureUrl ? (
        <fieldset className="mt-4">
          <legend className="text-sm font-medium text-slate-700">Send to</legend>
          <div className="mt-1 space-y-2 text-sm">
            <label className="flex items-center gap-2">
              <input type="radio" name="target" checked={target === "destination"} onChange={() => setTarget("destination")} />
              This destination&apos;s URLs
            </label>
            <label className="flex items-center gap-2">
              <input type="radio" name="target" checked={target === "capture"} onChange={() => setTarget("capture")} />A capture URL
            </label>
            {target === "capture" ? (
              <div className="flex items-center gap-2 pl-6">
                {bins.data?.length ? (
                  <select
                    aria-label="Capture URL"
                    className={`${selectClass} min-w-0 flex-1`}
                    value={url}
                    onChange={(e) => setBinUrl(e.target.value)}
                  >
                    {bins.data.map((b) => (
                      <option key={b.id} value={b.url}>
                        {b.name ? `${b.name} — ` : ""}
                        {b.url}
                      </option>
                    ))}
                  </select>
                ) : (
                  <span className="text-xs text-slate-500">No capture URL yet.</span>
                )}
                <Button variant="secondary" onClick={newBin} disabled={createBin.isPending}>
                  New capture URL
                </Button>
              </div>
            ) : null}
          </div>
        </fieldset>
      ) : null}

      <div className="mt-4 flex items-center gap-3">
        <Button onClick={submit} disabled={send.isPending || !destId || (target === "capture" && !url)}>
          {send.isPending ? "Sending…" : `Send test ${type}`}
        </Button>
        {target === "capture" && url && !captureUrl ? (
          <Link href={`/capture/${url.split("/c/")[1]}`} className="text-xs text-indigo-700 hover:underline">
            Watch it arrive →
          </Link>
        ) : null}
      </div>
      <div className="mt-3">
        <ErrorNote error={send.error ?? createBin.error} />
      </div>
      {send.data && !send.data.filter.passes ? (
        <p role="alert" className="mt-3 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200">
          Sent because it is a test, but this destination's filter would not send a real call like it: {send.data.filter.reason}.
        </p>
      ) : null}
      {send.data ? <TestResult attempts={send.data.attempts} /> : null}
    </Card>
  );
}
