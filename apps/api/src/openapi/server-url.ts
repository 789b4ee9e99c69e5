/**
 * Stands for the API's absolute URL (`https://api.example.com/api/v1`) wherever the document names
 * it: its `servers` and its code samples. The endpoint fills in, for each request, the host that
 * request asked for (http/openapi.ts).
 */
export const SERVER_URL_PLACEHOLDER = '{{server_url}}';
