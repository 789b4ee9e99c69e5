import type { ButtonHTMLAttributes, FormEvent, FormHTMLAttributes, ReactNode } from 'react';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { submitOnce } from '../forms';
import { BusyButton } from './busy-button';
import { ErrorMessage } from './feedback';

/**
 * A form that checks what is typed (react-hook-form) and sends a request: sent once at a time,
 * busy meanwhile, with the server's refusal (`setRefused`) shown just above its submit button.
 */
export function CheckedForm<T extends FieldValues, C, O>({
  form,
  onSubmit,
  closed,
  submit: { label, busyLabel, className = 'button button-primary', ...button },
  row,
  children,
  ...attributes
}: Omit<FormHTMLAttributes<HTMLFormElement>, 'onSubmit' | 'noValidate' | 'aria-busy'> & {
  form: UseFormReturn<T, C, O>;
  /** react-hook-form's `handleSubmit`. */
  onSubmit: (event: FormEvent<HTMLFormElement>) => Promise<void>;
  /** Not to be sent for now (a limit reached); the button's `aria-describedby` says why. */
  closed?: boolean;
  /** The submit button: its label, the label while the request runs, and its attributes. */
  submit: { label: ReactNode; busyLabel: string } & ButtonHTMLAttributes<HTMLButtonElement>;
  /** A row (its class) for the button, with what stands before it (a Cancel button). */
  row?: { className: string; before?: ReactNode };
  children: ReactNode;
}) {
  const { isSubmitting, errors } = form.formState;
  const refusal = errors.root?.server?.message;
  const submitButton = (
    <BusyButton
      type="submit"
      className={className}
      busy={isSubmitting}
      busyLabel={busyLabel}
      {...button}
    >
      {label}
    </BusyButton>
  );
  return (
    <form
      {...attributes}
      onSubmit={submitOnce(onSubmit, { submitting: isSubmitting, closed })}
      noValidate
      aria-busy={isSubmitting}
    >
      {children}
      {refusal && <ErrorMessage message={refusal} />}
      {row ? (
        <div className={row.className}>
          {row.before}
          {submitButton}
        </div>
      ) : (
        submitButton
      )}
    </form>
  );
}
