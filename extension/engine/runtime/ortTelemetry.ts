/**
 * onnxruntime's telemetry (its 1DS SDK) writes an empty mat-debug-<pid>.log into the temp folder of
 * every process that runs a model (thousands of them after a few test runs), and sends events where
 * that is enabled: ORT_DISABLE_TELEMETRY turns it off. It must be set in the main thread (the CLI;
 * the host before it starts the worker), because native code does not see a worker thread's copy of
 * process.env. A value the user set is left as it is.
 */
export function disableOrtTelemetry(): void {
  process.env.ORT_DISABLE_TELEMETRY ??= '1';
}
