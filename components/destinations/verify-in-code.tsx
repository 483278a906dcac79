"use client";

import { useId, useRef, useState } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { SNIPPET_LANGUAGES, VERIFY_SNIPPETS, type SigningScheme, type SnippetLanguage } from "./verify-snippets";

const SCHEME_NAMES: Record<SigningScheme, string> = { xSignature: "X-Signature", standardWebhooks: "Standard Webhooks" };

/**
 * "Verify in your code", beside a signing secret (docs/dashboard.md#destinations): a disclosure with
 * one tab per language (the WAI-ARIA tabs pattern: arrow keys, Home and End move between tabs), each
 * panel the receiver-side check for this scheme (verify-snippets.ts) and a copy button.
 */
export function VerifyInCode({ scheme }: { scheme: SigningScheme }) {
  const [lang, setLang] = useState<SnippetLanguage>("node");
  const base = useId();
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const name = SCHEME_NAMES[scheme];
  const move = (to: number) => {
    const next = SNIPPET_LANGUAGES[(to + SNIPPET_LANGUAGES.length) % SNIPPET_LANGUAGES.length];
    setLang(next.id);
    tabs.current[SNIPPET_LANGUAGES.indexOf(next)]?.focus();
  };
  const code = VERIFY_SNIPPETS[scheme][lang];
  return (
    <details className="group mt-2 min-w-0 rounded-md ring-1 ring-inset ring-slate-200">
      <summary className="cursor-pointer rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-500">
        Verify {name} in your code
      </summary>
      <div className="space-y-2 border-t border-slate-100 p-3">
        <p className="text-xs text-slate-500">
          Compute over the raw request body, before any JSON parsing, and compare in constant time. The same code keeps working during a
          rotation.
        </p>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <div role="tablist" aria-label={`Verify ${name} in`} className="inline-flex rounded-md ring-1 ring-inset ring-slate-300">
            {SNIPPET_LANGUAGES.map((l, i) => (
              <button
                key={l.id}
                ref={(el) => {
                  tabs.current[i] = el;
                }}
                type="button"
                role="tab"
                id={`${base}-${l.id}-tab`}
                aria-selected={lang === l.id}
                aria-controls={`${base}-panel`}
                tabIndex={lang === l.id ? 0 : -1}
                onClick={() => setLang(l.id)}
                onKeyDown={(e) => {
                  const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: SNIPPET_LANGUAGES.length - 1 }[e.key];
                  if (to === undefined) return;
                  e.preventDefault();
                  move(to);
                }}
                className="px-3 py-1 text-sm text-slate-700 first:rounded-l-md last:rounded-r-md hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-500 aria-selected:bg-indigo-600 aria-selected:text-on-accent"
              >
                {l.label}
              </button>
            ))}
          </div>
          <CopyButton value={code} label={`Copy the ${SNIPPET_LANGUAGES.find((l) => l.id === lang)?.label} code`} />
        </div>
        <pre
          id={`${base}-panel`}
          role="tabpanel"
          aria-labelledby={`${base}-${lang}-tab`}
          // Focusable, as the tabs pattern asks of a panel without controls: it scrolls on a narrow screen, and a keyboard must scroll it too.
          // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
          tabIndex={0}
          className="max-h-96 overflow-auto rounded-md bg-code p-3 font-mono text-xs leading-relaxed text-code-text focus-visible:outline-2 focus-visible:outline-indigo-500"
        >
          <code>{code}</code>
        </pre>
      </div>
    </details>
  );
}
