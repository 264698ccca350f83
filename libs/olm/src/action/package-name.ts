// The one check of an OLM package name the actions take: it names the CSV `<package>.v<version>`, a
// Kubernetes object name (DNS-1123 subdomain).
import { ActionError } from './errors.js';

const PACKAGE_NAME = /^[a-z0-9]([-a-z0-9.]{0,200}[a-z0-9])?$/;

/**
 * @param field where the name was read (default `--package`), named in the error
 * @throws ActionError `OPKIT_ARGUMENT_INVALID` naming `field` when the name cannot name a CSV
 */
export function checkPackageName(packageName: string, field = '--package'): void {
  if (!PACKAGE_NAME.test(packageName)) {
    throw new ActionError(
      'OPKIT_ARGUMENT_INVALID',
      `${field} ${JSON.stringify(packageName)}: lower-case letters, digits, '-' and '.' only (it names the CSV <package>.v<version>)`,
    );
  }
}
