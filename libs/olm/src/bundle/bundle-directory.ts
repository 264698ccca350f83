import { type Dirent, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { resolveWithinRoot } from '@opkit/oci/within-root';
import { byteOrder } from '../go-compat/go-format.js';
import { type AnnotationsFile, readAnnotationsFile } from './annotations-file.js';
import {
  BundleFileRefusedError,
  bundleEntryKind,
  MAX_BUNDLE_FILE_BYTES,
  readBundleFile,
} from './bundle-file.js';
import { parseYamlDocuments, type YamlDocumentResult } from './yaml.js';

/** An entry of a bundle directory: its name, and whether it is a directory to walk into. */
export interface BundleEntry {
  readonly name: string;
  readonly isDir: boolean;
}

/**
 * The first document of a bundle file: its value, the decoder's error text (which the Go tools take for a file
 * to skip), or why a reader limit refused the file (its size, nesting depth or alias expansion), in the Go
 * tools' words (`read <path>: …`, `<path>: yaml: …`).
 */
export type FirstDocument =
  | { readonly value: unknown }
  | { readonly error: string }
  | { readonly refused: string };

/**
 * A bundle directory as every reader of one sees it: the loader (`loadBundle`, opkit's problems), operator-framework
 * /api's loader behind `bundle validate` and the scorecard (the Go tools' messages) read its files through here, so
 * that each file is read with the same limits — at most {@link MAX_BUNDLE_FILE_BYTES}, a regular file, links
 * followed only while they stay within the directory — whatever the dialect its readers report in. A refusal is a
 * {@link BundleFileRefusedError}: its `reason` is what opkit's problems say, its `message` what the Go tools' say.
 */
export class BundleDirectory {
  /** @param root the bundle directory (or the part of it a reader walks, such as `manifests/`), as given */
  constructor(readonly root: string) {}

  /**
   * The bytes of a file of the directory; `within` is the directory its links must stay in (the root unless
   * said otherwise).
   *
   * @throws {BundleFileRefusedError} naming the file; the file-system error when it cannot be read
   */
  read(path: string, within: string = this.root): Buffer {
    return readBundleFile(path, MAX_BUNDLE_FILE_BYTES, within);
  }

  /** {@link read} as UTF-8 text. */
  readText(path: string, within: string = this.root): string {
    return this.read(path, within).toString('utf8');
  }

  /** A file's annotations, decoded as the Go tools decode them (see `readAnnotationsFile`). */
  readAnnotations(path: string, within: string = this.root): AnnotationsFile {
    return readAnnotationsFile(this.read(path, within));
  }

  /** Every YAML (or JSON) document of a file, as the bundle's manifests are read. */
  readDocuments(path: string, within: string = this.root): YamlDocumentResult[] {
    return parseYamlDocuments(this.readText(path, within));
  }

  /**
   * The first document of a file as the Go YAML-or-JSON decoder yields it. `within` defaults to the file's own
   * directory, as operator-framework/api reads the files of the directory holding the CSV.
   */
  firstDocument(path: string, within: string = dirname(path)): FirstDocument {
    let text: string;
    try {
      text = this.readText(path, within);
    } catch (error) {
      if (error instanceof BundleFileRefusedError) return { refused: error.message };
      throw error;
    }
    const first = parseYamlDocuments(text)[0];
    if (first === undefined) return { error: 'EOF' };
    if (!first.ok && first.limit === 'depth')
      return { refused: `${path}: yaml: line ${first.line}: ${first.reason}` };
    if (!first.ok && first.limit === 'aliases') return { refused: `${path}: yaml: ${first.reason}` };
    if (!first.ok)
      return { error: `error converting YAML to JSON: yaml: line ${first.line}: ${first.reason}` };
    return { value: first.value };
  }

  /**
   * What `path`, below the root, is: `'dir'` to walk into, `'file'` to read or `'missing'`.
   *
   * @throws {BundleFileRefusedError} when a link on the path leads out of the root
   */
  entryKind(path: string): 'dir' | 'file' | 'missing' {
    return bundleEntryKind(this.root, path);
  }

  /** Whether `sub` of the root leads out of it through a symlink (a loop of links does not: nothing is there). */
  leadsOut(sub: string): boolean {
    try {
      return resolveWithinRoot(this.root, sub) === undefined;
    } catch {
      return false;
    }
  }

  /** Whether `sub` of the root is a directory, as the file system says (links followed). */
  isDirectory(sub = ''): boolean {
    try {
      return statSync(join(this.root, sub)).isDirectory();
    } catch {
      return false;
    }
  }

  /** The entries of a directory, as `fs.readdirSync` gives them. */
  list(dir: string): Dirent[] {
    return readdirSync(dir, { withFileTypes: true });
  }

  /** The entries of a directory in byte order of their names, as Go's `os.ReadDir` lists them. */
  entries(dir: string): BundleEntry[] {
    return this.list(dir)
      .map((e) => ({ name: e.name, isDir: e.isDirectory() }))
      .sort((a, b) => byteOrder(a.name, b.name));
  }
}
