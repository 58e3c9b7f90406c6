/** GET `url` with a deadline: its status and body, or undefined when it does not answer. */
export async function httpGet(url: string, timeoutMs: number, apiKey?: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const headers = apiKey ? { authorization: `Bearer ${apiKey}` } : undefined;
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, body: await res.text() };
  } catch {
    return undefined;
  }
}
