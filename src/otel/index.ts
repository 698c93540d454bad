/** OpenTelemetry export of a run; the SDK itself is imported only by `otelSink`, when enabled. */
export { EVALUATION_EVENT } from "./attributes.js";
export { checkOtelEndpoints, masker, otelConfigNotes, otelEnabled } from "./config.js";
export { type OtelSinkOptions, otelSink } from "./sink.js";
