/**
 * The size over which a Hub model's download is asked about (the editor) or refused until allowed
 * (the CLI): draftsmith.hub.maxDownloadGB and --max-download-gb, in GB of 10^9 bytes.
 *
 * 4 GB: the recommended models (0.5-3B instruct models in 4 bits, distilbart) download without a
 * question, while a 7B model in 16 or 32 bits (14-28 GB), the kind that fills a laptop's disk, is
 * asked about first.
 */
export const DEFAULT_MAX_DOWNLOAD_GB = 4;
export const GB = 1e9;
