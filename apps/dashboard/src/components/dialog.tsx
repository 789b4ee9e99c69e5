import { useId, useLayoutEffect, useRef, type ReactNode } from 'react';
import { BusyButton } from './busy-button';
import { ErrorMessage } from './feedback';

interface DialogProps {
  title: string;
  /**
   * Escape, and the dialog's own close buttons, call this; the parent then unmounts the dialog.
   * The dialog stays open until it does.
   */
  onClose: () => void;
  children: ReactNode;
  /** `alertdialog` for confirmations of destructive actions. */
  role?: 'dialog' | 'alertdialog';
}

/**
 * A modal `<dialog>`: `showModal()` makes the rest of the page inert, so focus stays inside it, and
 * Escape closes it. Focus starts on the element marked `data-autofocus` (else the first focusable
 * one) and goes back to where it was when the dialog opened.
 */
export function Dialog({ title, onClose, children, role }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const onCloseRef = useRef(onClose);
  useLayoutEffect(() => {
    onCloseRef.current = onClose;
  });

  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    // React does not render `autoFocus` as an attribute, so the dialog marks its own start point.
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    // Where focus last was inside the dialog, to return to should the browser close it.
    let focused: HTMLElement | null = null;
    const focusin = (event: FocusEvent) => {
      if (event.target instanceof HTMLElement) focused = event.target;
    };
    const cancel = (event: Event) => {
      // The parent decides: it unmounts the dialog (or keeps it open while busy).
      event.preventDefault();
      onCloseRef.current();
    };
    const close = () => {
      // Escapes with no click in between may not be stoppable (Chromium's close-watcher rule
      // against pages that trap the user): the browser then closes the dialog after the `cancel`
      // above anyway. The parent still shows it, so it opens again, as the parent left it.
      if (dialog.open) return;
      // Taken first: showModal() focuses an element of its own choice.
      const last = focused && dialog.contains(focused) ? focused : null;
      dialog.showModal();
      (last ?? dialog.querySelector<HTMLElement>('[data-autofocus]'))?.focus();
    };
    dialog.addEventListener('focusin', focusin);
    dialog.addEventListener('cancel', cancel);
    dialog.addEventListener('close', close);
    return () => {
      dialog.removeEventListener('focusin', focusin);
      dialog.removeEventListener('cancel', cancel);
      dialog.removeEventListener('close', close);
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} role={role}>
      <h2 id={titleId} className="dialog-title">
        {title}
      </h2>
      {children}
    </dialog>
  );
}

interface ConfirmDialogProps {
  title: string;
  /** What the change does, and what it cannot undo. */
  children: ReactNode;
  /** The button that keeps things as they are; focus starts on it. */
  cancelLabel: string;
  confirmLabel: string;
  /** The confirm button's label while the change runs. */
  busyLabel: string;
  busy: boolean;
  /** Why the change failed, shown above the buttons; null when it did not. */
  error: unknown;
  onCancel: () => void;
  onConfirm: () => void;
}

/** An `alertdialog` asking before a destructive change; it cannot be dismissed while it runs. */
export function ConfirmDialog({
  title,
  children,
  cancelLabel,
  confirmLabel,
  busyLabel,
  busy,
  error,
  onCancel,
  onConfirm,
}: ConfirmDialogProps) {
  return (
    <Dialog title={title} role="alertdialog" onClose={() => !busy && onCancel()}>
      {children}
      {error !== null && <ErrorMessage error={error} />}
      <div className="dialog-actions">
        <button
          type="button"
          className="button button-secondary"
          onClick={onCancel}
          disabled={busy}
          data-autofocus
        >
          {cancelLabel}
        </button>
        <BusyButton
          className="button button-danger"
          onClick={onConfirm}
          busy={busy}
          busyLabel={busyLabel}
        >
          {confirmLabel}
        </BusyButton>
      </div>
    </Dialog>
  );
}

/** The end of a dialog that shows something and asks nothing: one button, to close it. */
export function DoneAction({ onDone }: { onDone: () => void }) {
  return (
    <div className="dialog-actions">
      <button type="button" className="button button-secondary" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
