/**
 * Read a body as UTF-8, at most `maxBytes` of it: stops (and cancels the stream) as soon as
 * the declared length or the bytes read pass the cap, so a huge answer is never held whole.
 */
export async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ over: false; text: string } | { over: true; declared: number | undefined }> {
  const length = Number(response.headers.get("content-length") ?? Number.NaN);
  const declared = Number.isFinite(length) ? length : undefined;
  if (declared !== undefined && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { over: true, declared };
  }
  if (!response.body) return { over: false, text: "" };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { over: true, declared };
    }
    chunks.push(value);
  }
  return { over: false, text: Buffer.concat(chunks).toString("utf8") };
}
