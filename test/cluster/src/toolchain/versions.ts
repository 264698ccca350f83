/**
 * The component versions the local control plane is built from. Kubernetes 1.36 matches the client
 * libraries that kwok 0.8 and OLM 0.46 are built against, so there is no client/server skew.
 */
export const KUBERNETES_VERSION = '1.36.3';
/** etcd 3.6 is the server line paired with Kubernetes ≥ 1.34. */
export const ETCD_VERSION = '3.6.16';
export const KWOK_VERSION = '0.8.0';
/** The oldest Go that builds every component (kwok 0.8 uses Go 1.26 syntax). */
export const MINIMUM_GO_VERSION = '1.26.0';
/** opm, the judge of our bundles and file-based catalogs. */
export const OPM_VERSION = '1.73.0';
/**
 * crdify, the CRD upgrade-safety checker OLM v1 runs as its preflight: the exact commit operator-controller
 * v1.11.0 requires (its go.mod pins this pseudo-version, newer than the v0.5.0 tag: it adds the pattern,
 * nullable and oneOf validations).
 */
export const CRDIFY_VERSION = '0.6.1-0.20260602124154-bb9957dbf465';
/** OLM's olm and catalog operators. */
export const OLM_VERSION = '0.46.0';
/** containerd 2.x: Kubernetes 1.36's kubelet no longer supports containerd 1.x. */
export const CONTAINERD_VERSION = '2.4.2';
/** CoreDNS for cluster names inside pods. */
export const COREDNS_VERSION = '1.14.7';
/** grpc_health_probe for the opm image (OLM's registry pods probe with it). */
export const GRPC_HEALTH_PROBE_VERSION = '0.4.61';
/**
 * Prometheus 3.16.0, whose Go module version is v0.316.0 (v0.<major><minor>.<patch>): its server scrapes the
 * operators' metrics on the real node (opt-in), and its promtool tests their alert and recording rules.
 */
export const PROMETHEUS_VERSION = '0.316.0';
/** promtool is a command of the Prometheus module, at the same version. */
export const PROMTOOL_VERSION = PROMETHEUS_VERSION;
/**
 * The Prometheus Operator and its config-reloader: the newest release of its main module the Go module proxy
 * serves (later tags exist only for its `pkg/apis` and `pkg/client` modules there).
 */
export const PROMETHEUS_OPERATOR_VERSION = '0.85.0';
