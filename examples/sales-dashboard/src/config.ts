/** Where the API is and which key to use: the only place this example reads the environment. */
export interface ApiConfig {
  /** `BOXOFFICE_API_KEY`: needs the `read` scope. It stays on this server: pages never contain it. */
  apiKey: string | undefined;
  /** `BOXOFFICE_BASE_URL`, e.g. `http://localhost:3000/api/v1`; the SDK's default otherwise. */
  baseURL: string | undefined;
}

export function loadApiConfig(): ApiConfig {
  return {
    apiKey: process.env.BOXOFFICE_API_KEY || undefined,
    baseURL: process.env.BOXOFFICE_BASE_URL || undefined,
  };
}
