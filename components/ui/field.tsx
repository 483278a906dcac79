import { cloneElement, isValidElement, type InputHTMLAttributes, type ReactElement, type ReactNode } from "react";

export const inputClass =
  "block w-full min-w-0 rounded-md border-0 bg-transparent px-2.5 py-1.5 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 placeholder:text-slate-500 focus:ring-2 focus:ring-inset focus:ring-indigo-600 aria-[invalid=true]:ring-red-500";

export function Input(props: InputHTMLAttributes<HTMLInputElement>) {
  return <input {...props} className={`${inputClass} ${props.className ?? ""}`} />;
}

/** The ids a control's error and hint carry, so the control can name them in aria-describedby. */
export const errorId = (controlId: string) => `${controlId}-error`;
export const hintId = (controlId: string) => `${controlId}-hint`;

/** An inline field error: announced when it appears, and linked to its control by id. */
export function FieldError({ id, message, className = "" }: { id: string; message?: string; className?: string }) {
  return message ? (
    <p id={id} role="alert" className={`text-xs text-red-600 ${className}`}>
      {message}
    </p>
  ) : null;
}

/**
 * A labelled form control with its inline error (or hint). The control is linked to what is said
 * about it: aria-describedby points at the error or the hint, aria-invalid is set while it has an
 * error — so a screen reader reads "Retry window, invalid, At least 1 minute".
 */
export function Field({
  label,
  htmlFor,
  error,
  hint,
  children,
}: {
  label: string;
  htmlFor: string;
  error?: string;
  hint?: ReactNode;
  children: ReactNode;
}) {
  const describedBy = error ? errorId(htmlFor) : hint ? hintId(htmlFor) : undefined;
  const control = isValidElement(children)
    ? cloneElement(children as ReactElement<Record<string, unknown>>, {
        "aria-describedby": describedBy,
        "aria-invalid": error ? true : undefined,
      })
    : children;
  return (
    <div className="space-y-1">
      <label htmlFor={htmlFor} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      {control}
      {error ? (
        <FieldError id={errorId(htmlFor)} message={error} />
      ) : hint ? (
        <p id={hintId(htmlFor)} className="text-xs text-slate-500">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
