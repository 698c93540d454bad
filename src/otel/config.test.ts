import { describe, expect, it } from "vitest";
import { batchSettings, otelConfigNotes } from "./config.js";

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

describe("batchSettings", () => {
  it("reads OTEL_BSP_* for spans and OTEL_BLRP_* for log records, with the specification's defaults", () => {
    expect(batchSettings({})).toEqual({
      settings: {
        traces: {
          maxQueueSize: 2048,
          maxExportBatchSize: 512,
          scheduledDelayMillis: 5000,
          exportTimeoutMillis: 30_000,
        },
        logs: {
          maxQueueSize: 2048,
          maxExportBatchSize: 512,
          scheduledDelayMillis: 1000,
          exportTimeoutMillis: 30_000,
        },
      },
      notes: [],
    });
    const { settings } = batchSettings({
      OTEL_BLRP_MAX_QUEUE_SIZE: " 100000 ",
      OTEL_BLRP_SCHEDULE_DELAY: "0",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "64",
      OTEL_BSP_EXPORT_TIMEOUT: "2500",
    });
    expect(settings.logs).toMatchObject({ maxQueueSize: 100_000, scheduledDelayMillis: 0 });
    expect(settings.traces).toMatchObject({ maxExportBatchSize: 64, exportTimeoutMillis: 2500 });
  });

  it("never batches more than the queue holds, as the SDK does", () => {
    const { settings } = batchSettings({ OTEL_BLRP_MAX_QUEUE_SIZE: "100" });
    expect(settings.logs).toMatchObject({ maxQueueSize: 100, maxExportBatchSize: 100 });
  });

  it("uses the default of a variable that is not a valid value, and says so", () => {
    const env = {
      OTEL_BLRP_MAX_QUEUE_SIZE: "lots",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "0",
      OTEL_BSP_MAX_QUEUE_SIZE: "10.5",
      OTEL_BLRP_EXPORT_TIMEOUT: "-1",
    };
    const { settings, notes } = batchSettings(env);
    expect(settings.logs.maxQueueSize).toBe(2048);
    expect(settings.logs.exportTimeoutMillis).toBe(30_000);
    expect(settings.traces).toMatchObject({ maxQueueSize: 2048, maxExportBatchSize: 512 });
    expect(notes).toEqual([
      'niceeval: OTEL_BSP_MAX_QUEUE_SIZE is "10.5", which is not a whole number of 1 or more; its default, 2048, is used',
      'niceeval: OTEL_BSP_MAX_EXPORT_BATCH_SIZE is "0", which is not a whole number of 1 or more; its default, 512, is used',
      'niceeval: OTEL_BLRP_MAX_QUEUE_SIZE is "lots", which is not a whole number of 1 or more; its default, 2048, is used',
      'niceeval: OTEL_BLRP_EXPORT_TIMEOUT is "-1", which is not a number of milliseconds of 0 or more; its default, 30000, is used',
    ]);
    expect(otelConfigNotes(env)).toEqual(notes);
  });
});
