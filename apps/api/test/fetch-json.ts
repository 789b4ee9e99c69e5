export interface JsonRequest {
  /** Sent as a bearer token. */
  key?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is: text is sent as UTF-8, bytes exactly. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface JsonAnswer<T = any> {
  status: number;
  headers: Headers;
  /** The body parsed as JSON; the text itself when it is not JSON; undefined when empty. */
  body: T;
}

/** One request over HTTP, its answer read to the end. */
export async function fetchJson<T = any>(
  url: string,
  method: string,
  options: JsonRequest = {},
): Promise<JsonAnswer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | Uint8Array | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, { method, headers, body, signal: options.signal });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // left as text: the assertion that follows will show it
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}
