import { describe, expect, it } from "vitest";
import { otelConfigNotes } from "./config.js";

describe("otelConfigNotes", () => {
  it("says a protocol other than http/json, unless each signal sets http/json of its own", () => {
    expect(otelConfigNotes({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toHaveLength(1);
    expect(
      otelConfigNotes({
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: "http/json",
      }),
    ).toEqual([]);
    const logsOnly = otelConfigNotes({
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: "http/json",
    });
    expect(logsOnly).toHaveLength(1);
    expect(logsOnly[0]).toContain('OTEL_EXPORTER_OTLP_PROTOCOL is "grpc"');
    expect(otelConfigNotes({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toEqual([]);
  });

  it("counts header parts that are not name=value without showing them", () => {
    const [note] = otelConfigNotes({ OTEL_EXPORTER_OTLP_HEADERS: "a=1,secret-token,b=2,other" });
    expect(note).toContain("has 2 parts that are not name=value");
    expect(note).not.toContain("secret-token");
  });
});
