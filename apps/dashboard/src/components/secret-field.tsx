import { useId, useState, type Ref } from 'react';

/**
 * A secret shown once in a dialog (an API key, a webhook signing secret): read-only, selected on
 * focus, with a Copy button that focus starts on and a status line that confirms the copy, or says
 * how to copy by hand when the clipboard refuses.
 */
export function SecretField({
  label,
  secret,
  noun,
  onCopied,
  copyRef,
}: {
  label: string;
  secret: string;
  /** What the failure message calls it: “select the key and copy it yourself”. */
  noun: string;
  /** Copied, with the button or by hand from the field. */
  onCopied?: () => void;
  copyRef?: Ref<HTMLButtonElement>;
}) {
  const inputId = useId();
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');

  const copySecret = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopy('copied');
      onCopied?.();
    } catch {
      setCopy('failed');
    }
  };

  return (
    <div className="field">
      <label htmlFor={inputId}>{label}</label>
      <div className="copy-row">
        <input
          id={inputId}
          className="secret"
          readOnly
          value={secret}
          spellCheck={false}
          onFocus={(event) => event.currentTarget.select()}
          onCopy={onCopied}
        />
        <button
          type="button"
          className="button button-primary"
          onClick={() => void copySecret()}
          ref={copyRef}
          data-autofocus
        >
          {copy === 'copied' ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p className="field-hint" role="status">
        {copy === 'copied' && 'Copied to the clipboard.'}
        {copy === 'failed' && `Could not copy: select the ${noun} and copy it yourself.`}
      </p>
    </div>
  );
}
