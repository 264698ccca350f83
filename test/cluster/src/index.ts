// The local control plane for tests: start one, reach into it, stop it.
export { type ComponentName, type LocalCluster, type StartClusterOptions, startCluster } from './cluster.js';
export { type ApiServerReplica, startApiServerReplica } from './control-plane/api-server-replica.js';
export { freePort } from './control-plane/ports.js';
export {
  ClusterError,
  ComponentBuildError,
  ComponentStartError,
  GoToolchainError,
  PortInUseError,
} from './errors.js';
export { EtcdAccess } from './etcd.js';
export {
  BASE_IMAGE_ANNOTATION,
  LOCAL_REGISTRY_HOSTING,
  type LocalRegistryRecord,
  localRegistryHostingConfigMap,
  recordLocalRegistry,
} from './images/local-registry-hosting.js';
export { type ImageRegistry, startImageRegistry } from './images/registry.js';
export { type ListWatchHandler, listWatch } from './kube/list-watch.js';
export { KubeApiError, KubeRest } from './kube/rest.js';
export { opkitScript } from './opkit-command.js';
export {
  askGoParsers,
  type GoParserAnswer,
  type GoParserRequest,
  goParsersRecipe,
} from './oracles/go-parsers.js';
export { eventually } from './polling.js';
export {
  PROMETHEUS_NAMESPACE,
  PROMETHEUS_SERVICE_ACCOUNT,
  type PrometheusAlert,
  PrometheusApi,
  type PrometheusInstall,
  type PrometheusTarget,
} from './prometheus/index.js';
export { type PrintedCluster, parseReadyLines } from './ready-message.js';
export { releasedData, workspaceRoot } from './released-data.js';
export {
  promtoolTestRules,
  type RuleTestRun,
  untestedRules,
  withRuleExpr,
} from './rule-tests/index.js';
export { type BuiltComponent, ensureComponents } from './toolchain/build.js';
export { crdifyBinary } from './toolchain/crdify.js';
export { oldestSupportedNode } from './toolchain/node-runtime.js';
export { type OpmServeOptions, opmBinary, opmServeArgs } from './toolchain/opm.js';
export { promtoolBinary } from './toolchain/promtool.js';
export type { BuildContext, ComponentRecipe } from './toolchain/recipes.js';
