/**
 * The messages of OLM's registry gRPC API (`api.Registry`, proto package `api`), as plain objects. Field names
 * are the proto field names; every scalar is a proto3 `string`, so an empty string and an absent field are the
 * same on the wire. See `proto/registry.proto`.
 */

export interface ApiGroupVersionKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
}

/** A bundle dependency (`olm.gvk` or `olm.package`) or property; `value` is compact JSON. */
export interface ApiTypedValue {
  type: string;
  value: string;
}

export interface ApiDeprecation {
  message: string;
}

export interface ApiBundle {
  csvName: string;
  packageName: string;
  channelName: string;
  csvJson: string;
  object: string[];
  bundlePath: string;
  providedApis: ApiGroupVersionKind[];
  requiredApis: ApiGroupVersionKind[];
  version: string;
  skipRange: string;
  dependencies: ApiTypedValue[];
  properties: ApiTypedValue[];
  replaces: string;
  skips: string[];
  deprecation?: ApiDeprecation;
}

export interface ApiChannel {
  name: string;
  csvName: string;
  deprecation?: ApiDeprecation;
}

export interface ApiPackage {
  name: string;
  channels: ApiChannel[];
  defaultChannelName: string;
  deprecation?: ApiDeprecation;
}

export interface ApiPackageName {
  name: string;
}

export interface ApiChannelEntry {
  packageName: string;
  channelName: string;
  bundleName: string;
  replaces: string;
}

export interface GetPackageRequest {
  name: string;
}

export interface GetBundleRequest {
  pkgName: string;
  channelName: string;
  csvName: string;
}

export interface GetBundleInChannelRequest {
  pkgName: string;
  channelName: string;
}

export interface GetAllReplacementsRequest {
  csvName: string;
}

export interface GetReplacementRequest {
  csvName: string;
  pkgName: string;
  channelName: string;
}

/** The request of the three "provides" methods (`GetAllProvidersRequest` and its siblings). */
export interface ProvidersRequest {
  group: string;
  version: string;
  kind: string;
  plural: string;
}

/** `grpc.health.v1.HealthCheckResponse.ServingStatus`. */
export const ServingStatus = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } as const;

export interface HealthCheckRequest {
  service: string;
}

export interface HealthCheckResponse {
  status: number;
}
