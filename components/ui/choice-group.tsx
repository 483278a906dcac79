"use client";

import { type ReactNode, useId } from "react";

/**
 * One choice out of a few, shown as buttons: native radio inputs (so arrow keys, the radio role and
 * the group's name work as assistive technology expects), each input covering its label so a click
 * anywhere on the button picks it.
 */
export function ChoiceGroup<T extends string>({
  label,
  options,
  value,
  onChange,
  variant = "joined",
  labelVisible = false,
}: {
  label: string;
  options: readonly { value: T; label: ReactNode }[];
  value: T;
  onChange: (value: T) => void;
  /** joined: one bar of segments; separate: a wrap of small chips */
  variant?: "joined" | "separate";
  labelVisible?: boolean;
}) {
  const name = useId();
  const joined = variant === "joined";
  return (
    <fieldset className={joined ? "inline-flex min-w-0 rounded-md shadow-sm ring-1 ring-inset ring-slate-300" : "min-w-0"}>
      <legend className={labelVisible ? "mb-1 block text-sm font-medium text-slate-700" : "sr-only"}>{label}</legend>
      <div className={joined ? "contents" : "flex flex-wrap gap-1"}>
        {options.map((o) => (
          <label
            key={o.value}
            className={
              joined
                ? "relative cursor-pointer px-3 py-1.5 text-sm text-slate-700 first:rounded-l-md last:rounded-r-md hover:bg-slate-50 has-checked:bg-indigo-600 has-checked:text-on-accent has-focus-visible:outline-2 has-focus-visible:outline-indigo-500"
                : "relative cursor-pointer rounded-md px-2.5 py-1 font-mono text-xs text-slate-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 has-checked:bg-indigo-600 has-checked:text-on-accent has-checked:ring-indigo-600 has-focus-visible:outline-2 has-focus-visible:outline-indigo-500"
            }
          >
            <input
              type="radio"
              name={name}
              value={o.value}
              checked={value === o.value}
              onChange={() => onChange(o.value)}
              className="absolute inset-0 cursor-pointer appearance-none opacity-0"
            />
            {o.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
