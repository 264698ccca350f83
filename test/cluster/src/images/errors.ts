import { ClusterError } from '../errors.js';

/** Building, caching or pushing one of the cluster's container images failed. */
export class ImageBuildError extends ClusterError {
  constructor(message: string, options?: ErrorOptions) {
    super('CLUSTER_IMAGE_BUILD_FAILED', message, options);
  }
}

/** A host program the image builder needs is missing; the message names the package to install. */
export class ImageToolMissingError extends ClusterError {
  constructor(
    readonly program: string,
    readonly debianPackage: string,
  ) {
    super(
      'CLUSTER_IMAGE_TOOL_MISSING',
      `'${program}' is not installed: run 'apt-get install ${debianPackage}' as root to build the cluster's images`,
    );
  }
}
