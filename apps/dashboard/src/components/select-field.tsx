import { useId, type ReactNode, type Ref, type SelectHTMLAttributes } from 'react';

/** A labelled `<select>`, with its error tied to it for assistive technology. */
export function SelectField({
  label,
  error,
  ref,
  children,
  ...select
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id'> & {
  label: string;
  error?: string;
  ref?: Ref<HTMLSelectElement>;
  /** Its `<option>`s. */
  children: ReactNode;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        {...select}
        ref={ref}
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
      >
        {children}
      </select>
      {error && (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}
