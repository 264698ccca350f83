// The `-o, --output text|json|yaml` of the commands that build or apply something: text is the human lines
// they always printed; json and yaml are one result object on stdout, and every progress line goes to stderr
// so that stdout stays parseable. Light at load: the YAML writer is imported when a result is written.
import type { OciImage, OciImageIndex } from '@opkit/oci';

/**
 * The formats of a command that builds or applies something: `text`, its human lines (the default), or one
 * result object as JSON or YAML on stdout, with progress lines on stderr.
 */
export const RESULT_FORMATS = ['text', 'json', 'yaml'] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];

/** Where a command's progress lines go: stdout for text, stderr when stdout carries a json or yaml result. */
export function progressLog(format: ResultFormat): (line: string) => void {
  const stream = format === 'text' ? process.stdout : process.stderr;
  return (line) => stream.write(`${line}\n`);
}

/** The result as the format prints it: `text` (the command's human lines, as given), JSON or YAML. */
export async function formatResult(format: ResultFormat, result: object, text: string): Promise<string> {
  if (format === 'json') return `${JSON.stringify(result, null, 2)}\n`;
  if (format === 'yaml') {
    const { stringify } = await import('yaml');
    return stringify(result, { lineWidth: 0 });
  }
  return text;
}

/** Writes the result to stdout in the format asked for. */
export async function writeResult(format: ResultFormat, result: object, text: string): Promise<void> {
  process.stdout.write(await formatResult(format, result, text));
}

/** What an image command wrote into an OCI layout. */
export interface ImageResult {
  /** `<layout>:<tag>`, as `opkit image push` and `opkit catalog serve` take it. */
  readonly reference: string;
  readonly layout: string;
  readonly tag: string;
  /** Digest of the image's manifest (or of the index, for a multi-platform image). */
  readonly digest: string;
  readonly mediaType: string;
  /** Size of the manifest (or index) in bytes, as its descriptor in the layout's index.json gives it. */
  readonly size: number;
  /** The image of each platform, for a multi-platform image. */
  readonly platforms?: ReadonlyArray<{ readonly platform: string; readonly digest: string }>;
}

/** The result of writing `image` into `layout` under `tag`. */
export function imageResult(layout: string, tag: string, image: OciImage | OciImageIndex): ImageResult {
  const bytes = 'indexBytes' in image ? image.indexBytes : image.manifestBytes;
  return {
    reference: `${layout}:${tag}`,
    layout,
    tag,
    digest: image.digest,
    mediaType: image.mediaType,
    size: bytes.byteLength,
  };
}
