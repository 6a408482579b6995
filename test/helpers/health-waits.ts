/** What a large read answered, and how long /health requests sent one after another meanwhile waited. */
export interface HealthWaits {
  status: number;
  /** The answer's bytes, counted as they arrive (parsing 30 MB or more here would hold this process's loop). */
  length: number;
  /** The large read's duration, in ms. */
  took: number;
  /** The longest wait of a /health request sent while the large read ran, in ms. */
  longestHealthWait: number;
}

/**
 * GETs `path` of API version 2026-03 with `token` (or POSTs `post` as JSON) while requesting /health one after
 * another until it is answered: whether the process answers other requests while it makes a large answer.
 */
export async function healthWaitsDuring(
  baseUrl: string,
  path: string,
  token: string,
  post?: unknown,
): Promise<HealthWaits> {
  const started = performance.now();
  const big = (async () => {
    const response = await fetch(`${baseUrl}/api/2026-03/${path}`, {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(post === undefined ? {} : { method: 'POST', body: JSON.stringify(post) }),
    });
    let length = 0;
    for await (const chunk of response.body!) length += (chunk as Uint8Array).length;
    return { status: response.status, length, took: performance.now() - started };
  })();
  let done = false;
  void big.finally(() => {
    done = true;
  });
  let longestHealthWait = 0;
  while (!done) {
    const asked = performance.now();
    const health = await fetch(`${baseUrl}/api/2026-03/health`);
    if (health.status !== 200) throw new Error(`/health answered ${health.status}`);
    longestHealthWait = Math.max(longestHealthWait, performance.now() - asked);
  }
  return { ...(await big), longestHealthWait };
}
