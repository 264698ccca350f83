// The defaults of `opkit image build`, apart from the pipeline so that printing the command's help does not
// load the pipeline (esbuild, the OCI code).

/** The base when none is given: distroless Node 24 on Debian 12, user `nonroot`; its entrypoint is `node`. */
export const DEFAULT_BASE_IMAGE = 'gcr.io/distroless/nodejs24-debian12:nonroot';
/** The user when none is given: distroless's `nonroot`, by number so Kubernetes can check `runAsNonRoot`. */
export const DEFAULT_USER = '65532:65532';
