import type { MessageSchema } from './wire.js';

// The registry and health messages with their field numbers (proto/registry.proto, proto/health.proto).

const str = (no: number, name: string) => ({ no, name, kind: 'string' as const });
const strs = (no: number, name: string) => ({ no, name, kind: 'string' as const, repeated: true });
const msg = (no: number, name: string, message: () => MessageSchema, repeated = false) => ({
  no,
  name,
  kind: 'message' as const,
  message,
  repeated,
});

export const Deprecation: MessageSchema = { name: 'api.Deprecation', fields: [str(1, 'message')] };

export const Channel: MessageSchema = {
  name: 'api.Channel',
  fields: [str(1, 'name'), str(2, 'csvName'), msg(3, 'deprecation', () => Deprecation)],
};

export const PackageName: MessageSchema = { name: 'api.PackageName', fields: [str(1, 'name')] };

export const Package: MessageSchema = {
  name: 'api.Package',
  fields: [
    str(1, 'name'),
    msg(2, 'channels', () => Channel, true),
    str(3, 'defaultChannelName'),
    msg(4, 'deprecation', () => Deprecation),
  ],
};

export const GroupVersionKind: MessageSchema = {
  name: 'api.GroupVersionKind',
  fields: [str(1, 'group'), str(2, 'version'), str(3, 'kind'), str(4, 'plural')],
};

/** `api.Dependency` and `api.Property` share this shape. */
export const TypedValue: MessageSchema = { name: 'api.Property', fields: [str(1, 'type'), str(2, 'value')] };

export const Bundle: MessageSchema = {
  name: 'api.Bundle',
  fields: [
    str(1, 'csvName'),
    str(2, 'packageName'),
    str(3, 'channelName'),
    str(4, 'csvJson'),
    strs(5, 'object'),
    str(6, 'bundlePath'),
    msg(7, 'providedApis', () => GroupVersionKind, true),
    msg(8, 'requiredApis', () => GroupVersionKind, true),
    str(9, 'version'),
    str(10, 'skipRange'),
    msg(11, 'dependencies', () => TypedValue, true),
    msg(12, 'properties', () => TypedValue, true),
    str(13, 'replaces'),
    strs(14, 'skips'),
    msg(15, 'deprecation', () => Deprecation),
  ],
};

export const ChannelEntry: MessageSchema = {
  name: 'api.ChannelEntry',
  fields: [str(1, 'packageName'), str(2, 'channelName'), str(3, 'bundleName'), str(4, 'replaces')],
};

export const Empty: MessageSchema = { name: 'api.ListPackageRequest', fields: [] };

export const GetPackageRequest: MessageSchema = { name: 'api.GetPackageRequest', fields: [str(1, 'name')] };

export const GetBundleRequest: MessageSchema = {
  name: 'api.GetBundleRequest',
  fields: [str(1, 'pkgName'), str(2, 'channelName'), str(3, 'csvName')],
};

export const GetBundleInChannelRequest: MessageSchema = {
  name: 'api.GetBundleInChannelRequest',
  fields: [str(1, 'pkgName'), str(2, 'channelName')],
};

export const GetAllReplacementsRequest: MessageSchema = {
  name: 'api.GetAllReplacementsRequest',
  fields: [str(1, 'csvName')],
};

export const GetReplacementRequest: MessageSchema = {
  name: 'api.GetReplacementRequest',
  fields: [str(1, 'csvName'), str(2, 'pkgName'), str(3, 'channelName')],
};

export const ProvidersRequest: MessageSchema = {
  name: 'api.GetAllProvidersRequest',
  fields: [str(1, 'group'), str(2, 'version'), str(3, 'kind'), str(4, 'plural')],
};

export const HealthCheckRequest: MessageSchema = {
  name: 'grpc.health.v1.HealthCheckRequest',
  fields: [str(1, 'service')],
};

export const HealthCheckResponse: MessageSchema = {
  name: 'grpc.health.v1.HealthCheckResponse',
  fields: [{ no: 1, name: 'status', kind: 'enum' }],
};
