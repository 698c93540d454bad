import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** An OTLP attribute value as OTLP/JSON encodes it. */
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
type Attrs = Record<string, string | number | boolean>;

/** A span as received, its attributes decoded. */
export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  startMs: number;
  endMs: number;
  status: { code?: number; message?: string };
  attributes: Attrs;
  resource: Attrs;
}

/** A log record as received, its attributes decoded. */
export interface ReceivedLog {
  eventName?: string;
  traceId: string;
  spanId: string;
  timeMs: number;
  severityNumber?: number;
  attributes: Attrs;
}

/** A loopback OTLP/HTTP (JSON) receiver: what a collector would get. */
export interface Receiver {
  /** Base URL, e.g. http://127.0.0.1:4318 (without /v1/…). */
  url: string;
  spans: ReceivedSpan[];
  logs: ReceivedLog[];
  /** Headers and raw bodies of every request, to look for leaked secrets, and the status answered. */
  requests: { path: string; headers: IncomingHttpHeaders; body: string; status: number }[];
  /** Spans and log records in the requests that were refused (answered with an error status). */
  refused: { spans: number; logs: number };
  close(): Promise<void>;
}

const decode = (attributes: KeyValue[] | undefined): Attrs =>
  Object.fromEntries(
    (attributes ?? []).map(({ key, value }) => [
      key,
      value.stringValue ??
        value.boolValue ??
        (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
        value.doubleValue ??
        "",
    ]),
  );
const ms = (nanos: string | number) => Number(BigInt(nanos) / 1000n) / 1000;

// biome-ignore lint/suspicious/noExplicitAny: OTLP/JSON as the exporter sent it.
type Payload = any;

function decodeSpans(payload: Payload): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of payload.resourceSpans ?? []) {
    const resource = decode(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        spans.push({
          name: s.name,
          traceId: s.traceId,
          spanId: s.spanId,
          ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
          startMs: ms(s.startTimeUnixNano),
          endMs: ms(s.endTimeUnixNano),
          status: s.status ?? {},
          attributes: decode(s.attributes),
          resource,
        });
  }
  return spans;
}

function decodeLogs(payload: Payload): ReceivedLog[] {
  const logs: ReceivedLog[] = [];
  for (const rl of payload.resourceLogs ?? [])
    for (const sl of rl.scopeLogs ?? [])
      for (const l of sl.logRecords ?? [])
        logs.push({
          eventName: l.eventName,
          traceId: l.traceId,
          spanId: l.spanId,
          timeMs: ms(l.timeUnixNano),
          severityNumber: l.severityNumber,
          attributes: decode(l.attributes),
        });
  return logs;
}

/** An error a receiver answers a request with, instead of taking what it holds. */
export interface Refusal {
  status: number;
  body?: string;
}

/**
 * Start a receiver on 127.0.0.1 that answers `/v1/traces` and `/v1/logs` with 200, or with what
 * `refuse` returns for a request (`nth`: its number among the requests to that path, from 0);
 * `delayMs`: a slow collector, that answers each request (and takes what it holds) that late;
 * `port`: the port to listen on (default: any free one).
 */
export async function startReceiver(
  refuse: (path: string, nth: number) => Refusal | undefined = () => undefined,
  { delayMs = 0, port: at = 0 }: { delayMs?: number; port?: number } = {},
): Promise<Receiver> {
  const receiver: Omit<Receiver, "url" | "close"> = {
    spans: [],
    logs: [],
    requests: [],
    refused: { spans: 0, logs: 0 },
  };
  const seen = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const body = Buffer.concat(chunks).toString("utf8");
      const path = req.url ?? "";
      const nth = seen.get(path) ?? 0;
      seen.set(path, nth + 1);
      const refusal = refuse(path, nth);
      receiver.requests.push({
        path,
        headers: req.headers,
        body,
        status: refusal?.status ?? 200,
      });
      if (req.headers["content-type"] !== "application/json") {
        res.writeHead(415).end();
        return;
      }
      const payload = JSON.parse(body);
      if (path !== "/v1/traces" && path !== "/v1/logs") {
        res.writeHead(404).end();
        return;
      }
      const spans = path === "/v1/traces" ? decodeSpans(payload) : [];
      const logs = path === "/v1/logs" ? decodeLogs(payload) : [];
      if (refusal) {
        receiver.refused.spans += spans.length;
        receiver.refused.logs += logs.length;
        res.writeHead(refusal.status, { "content-type": "text/plain" }).end(refusal.body ?? "");
        return;
      }
      receiver.spans.push(...spans);
      receiver.logs.push(...logs);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(at, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...receiver,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 that nothing listens on (a collector that is down). */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
