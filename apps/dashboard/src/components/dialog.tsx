import { useId, useLayoutEffect, useRef, type ReactNode } from 'react';

interface DialogProps {
  title: string;
  /** Escape, and the dialog's own close buttons, call this; the parent then unmounts the dialog. */
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
    const cancel = (event: Event) => {
      // The parent decides: it unmounts the dialog (or keeps it open while busy).
      event.preventDefault();
      onCloseRef.current();
    };
    dialog.addEventListener('cancel', cancel);
    return () => {
      dialog.removeEventListener('cancel', cancel);
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
