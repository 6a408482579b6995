/** A tiny HTTP client over fetch that returns status, headers and the parsed JSON body, as a client sees them. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  // Tests read whatever JSON the API answered and assert on it, as a client would.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export function apiClient(baseUrl: string, token?: string, version = '2026-03') {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const url = path.startsWith('/') ? `${baseUrl}${path}` : `${baseUrl}/api/${version}/${path}`;
    const response = await fetch(url, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const result: ApiResponse = { status: response.status, headers: response.headers, body: parsed, text };
    return result;
  };
  return {
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      call('POST', path, body, headers),
    patch: (path: string, body?: unknown, headers?: Record<string, string>) =>
      call('PATCH', path, body, headers),
    put: (path: string, body?: unknown, headers?: Record<string, string>) => call('PUT', path, body, headers),
    delete: (path: string, headers?: Record<string, string>) => call('DELETE', path, undefined, headers),
    withVersion: (v: string) => apiClient(baseUrl, token, v),
  };
}

/** What an error answer must look like: the spec's envelope, with at least these `error_details`. */
export const envelope = (status: number, error: string, details: Record<string, unknown>) => ({
  status,
  error,
  error_details: expect.objectContaining(details) as unknown,
});

/** Polls until `check` returns a truthy value or the timeout passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined | false;
  while (Date.now() < deadline) {
    last = await check();
    if (last) return last;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms (last: ${JSON.stringify(last)})`);
}
