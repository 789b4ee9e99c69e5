import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError } from '../api';
import { BusyButton } from '../components/busy-button';
import { ErrorMessage } from '../components/feedback';
import { EmailField, NameField, PasswordField } from '../components/fields';
import { afterSignIn, Link, navigate, routes } from '../router';
import { useSession } from '../session';
import { useAction } from '../use-action';

const MIN_PASSWORD = 10;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function AuthLayout({
  title,
  intro,
  children,
  footer,
}: {
  title: string;
  intro: string;
  children: ReactNode;
  footer: ReactNode;
}) {
  return (
    <main id="main" className="auth">
      <div className="auth-card">
        <p className="brand brand-large" aria-hidden="true">
          Boxoffice
        </p>
        <h1 tabIndex={-1} data-page-heading>
          {title}
        </h1>
        <p className="muted">{intro}</p>
        {children}
        <p className="auth-footer">{footer}</p>
        <p className="auth-docs muted">
          Building on the API? Read the <a href="/docs">API reference</a>.
        </p>
      </div>
    </main>
  );
}

type Errors<K extends string> = Partial<Record<K, string>>;

/**
 * The submit flow both forms share: check the fields (an error moves focus to the first invalid
 * one), then run `action` once at a time. On success the page navigates away, so the form stays
 * busy; a failure is shown above the button.
 */
function useAuthForm<K extends string>(validate: () => Errors<K>, action: () => Promise<void>) {
  const formRef = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<Errors<K>>({});
  const {
    busy,
    error: serverError,
    setError: setServerError,
    run,
  } = useAction(action, { staysBusy: true });

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const found = validate();
    setErrors(found);
    setServerError(null);
    if (Object.keys(found).length > 0) {
      requestAnimationFrame(() =>
        formRef.current?.querySelector<HTMLInputElement>('[aria-invalid="true"]')?.focus(),
      );
      return;
    }
    await run();
  };

  return { formRef, errors, serverError, busy, submit };
}

/** The server's message, as a sentence (`password is…` → `Password is…`). */
const sentence = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);

export function SignUpPage() {
  const { signUp } = useSession();
  const [organisationName, setOrganisationName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const { formRef, errors, serverError, busy, submit } = useAuthForm(
    () => {
      const found: Errors<'organisation' | 'email' | 'password'> = {};
      if (!organisationName.trim()) found.organisation = 'Enter your organisation’s name.';
      if (!EMAIL.test(email.trim())) found.email = 'Enter an email address like name@example.com.';
      if (password.length < MIN_PASSWORD) {
        found.password = `Use at least ${MIN_PASSWORD} characters.`;
      }
      return found;
    },
    async () => {
      await signUp({ organisation_name: organisationName.trim(), email: email.trim(), password });
      navigate(routes.keys, { replace: true });
    },
  );

  // A password the server finds too easy to guess is a problem of that field: say so there.
  const weakPassword =
    serverError instanceof ApiError && serverError.code === 'weak_password'
      ? sentence(serverError.message)
      : undefined;
  useEffect(() => {
    if (weakPassword) passwordRef.current?.focus();
  }, [weakPassword]);
  // So is an email that already has an account, with the way to it.
  const isEmailTaken = serverError instanceof ApiError && serverError.code === 'email_taken';
  const emailTaken = isEmailTaken ? (
    <>
      An account with this email already exists. <Link to={routes.signIn}>Sign in instead</Link>.
    </>
  ) : undefined;
  useEffect(() => {
    if (isEmailTaken) emailRef.current?.focus();
  }, [isEmailTaken]);

  return (
    <AuthLayout
      title="Create your organisation"
      intro="Start on the Free plan: generate API keys now, and upgrade to Pro when you are ready to use them."
      footer={
        <>
          Already have an account? <Link to={routes.signIn}>Sign in</Link>
        </>
      }
    >
      <form ref={formRef} onSubmit={submit} noValidate aria-busy={busy}>
        <NameField
          label="Organisation name"
          name="organisation_name"
          autoComplete="organization"
          value={organisationName}
          onChange={setOrganisationName}
          error={errors.organisation}
        />
        <EmailField
          ref={emailRef}
          value={email}
          onChange={setEmail}
          error={errors.email ?? emailTaken}
        />
        <PasswordField
          ref={passwordRef}
          autoComplete="new-password"
          hint={`At least ${MIN_PASSWORD} characters and hard to guess: a few uncommon words work well.`}
          value={password}
          onChange={setPassword}
          error={errors.password ?? weakPassword}
          minLength={MIN_PASSWORD}
          maxLength={200}
        />
        {serverError !== null && !weakPassword && !emailTaken && (
          <ErrorMessage error={serverError} />
        )}
        <BusyButton
          type="submit"
          className="button button-primary button-block"
          busy={busy}
          busyLabel="Creating organisation…"
        >
          Create organisation
        </BusyButton>
      </form>
    </AuthLayout>
  );
}

export function SignInPage() {
  const { signIn } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const passwordRef = useRef<HTMLInputElement>(null);
  const { formRef, errors, serverError, busy, submit } = useAuthForm(
    () => {
      const found: Errors<'email' | 'password'> = {};
      if (!EMAIL.test(email.trim())) found.email = 'Enter the email address you signed up with.';
      if (!password) found.password = 'Enter your password.';
      return found;
    },
    async () => {
      try {
        await signIn({ email: email.trim(), password });
      } catch (error) {
        // A refused password is not kept: type it again from an empty field.
        if (error instanceof ApiError && error.status === 401) {
          setPassword('');
          passwordRef.current?.focus();
        }
        throw error;
      }
      navigate(afterSignIn(), { replace: true });
    },
  );

  return (
    <AuthLayout
      title="Sign in"
      intro="Manage your organisation’s API keys and plan."
      footer={
        <>
          New to Boxoffice? <Link to={routes.signUp}>Create an organisation</Link>
        </>
      }
    >
      <form ref={formRef} onSubmit={submit} noValidate aria-busy={busy}>
        <EmailField value={email} onChange={setEmail} error={errors.email} />
        <PasswordField
          ref={passwordRef}
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
          error={errors.password}
        />
        {serverError !== null && <ErrorMessage error={serverError} />}
        <BusyButton
          type="submit"
          className="button button-primary button-block"
          busy={busy}
          busyLabel="Signing in…"
        >
          Sign in
        </BusyButton>
      </form>
    </AuthLayout>
  );
}
