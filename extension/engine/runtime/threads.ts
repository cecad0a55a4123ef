/**
 * Intra-op threads per onnxruntime session when draftsmith.threads (or --threads) is left alone.
 * One, as measured: the shipped models are small (d = 192), a decoding step's
 * matrices are too small to share out across cores, and a second thread only adds the thread
 * pool's hand-offs (and, on a busy machine, waits for a core). The engine runs one session.run at a
 * time, so N threads never oversubscribe N cores; 0 lets onnxruntime use one per core.
 * Kept free of zod and onnxruntime: the host reads it at activation.
 */
export const DEFAULT_THREADS = 1;
