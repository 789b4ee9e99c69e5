import { useId, type InputHTMLAttributes, type ReactNode, type Ref } from 'react';

export type TextFieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> & {
  label: string;
  hint?: string;
  /** What is wrong with the value; may hold a link to the way out. */
  error?: ReactNode;
  /** A control beside the input (a show-password button). */
  addon?: ReactNode;
  /** The input, for the form that fills and checks it (react-hook-form's `register`). */
  ref?: Ref<HTMLInputElement>;
};

/** A labelled input with its hint and its error tied to it for assistive technology. */
export function TextField({ label, hint, error, addon, ref, ...input }: TextFieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ');
  const field = (
    <input
      {...input}
      ref={ref}
      id={id}
      aria-invalid={error ? true : undefined}
      aria-describedby={describedBy || undefined}
    />
  );
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      )}
      {addon ? (
        <div className="field-row">
          {field}
          {addon}
        </div>
      ) : (
        field
      )}
      {error && (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}
