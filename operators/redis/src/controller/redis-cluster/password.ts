// The cluster's password: read from its Secret (created when the operator generates it), written into the
// auth.conf Secret the pods start with, and carried over a rotation until every node runs the new one.

import { ignoreNotFound } from '@opkit/controller-runtime';
import { isSubset } from '@opkit/controller-runtime/controllerutil';
import { SECRET, type Secret } from '@opkit/controller-runtime/kinds';
import {
  AUTH_CONF_KEY,
  desiredAuthConfSecret,
  desiredPasswordSecret,
  generatePassword,
  PASSWORD_KEY,
  PREVIOUS_PASSWORD_KEY,
  passwordOfAuthConf,
  passwordSecretName,
} from '../resources.js';
import type { SyncResult } from '../topology.js';
import type { ClusterPass } from './context.js';
import { type Problem, writeFailure } from './status.js';

/** The password from the Secret, or why there is none (a condition reason and a message). */
type PasswordSource = { password: string } | Problem;

/** The passwords of this pass. */
export interface Auth {
  /** The password the nodes are to run with. */
  readonly password: string;
  /** The one they ran with before, while a rotation rolls out. */
  readonly previous: string | undefined;
  /** The password Secret is unusable and the cluster keeps the password it runs with. */
  readonly secretProblem: Problem | undefined;
}

const decode = (value: string | undefined) =>
  value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');

/** The auth Secret with exactly these keys (a key the operator drops must go, which `ensure` would not see). */
export async function ensureAuthConf(
  { client, cr }: ClusterPass,
  pw: string,
  previous: string | undefined,
  live: Secret | undefined,
): Promise<boolean> {
  const desired = desiredAuthConfSecret(cr, pw, previous);
  const liveKeys = Object.keys(live?.data ?? {}).sort();
  if (live && liveKeys.join() === Object.keys(desired.data).sort().join() && isSubset(desired, live))
    return false;
  await client.apply(desired);
  return true;
}

/** What is wrong with a password's bytes, if anything. */
function passwordFlaw(raw: Buffer): string | undefined {
  const value = raw.toString('utf8');
  return value === ''
    ? 'is empty'
    : !Buffer.from(value, 'utf8').equals(raw)
      ? 'is not valid UTF-8'
      : value.includes('\0')
        ? 'contains a NUL byte'
        : undefined;
}

/**
 * The password from the cluster's Secret (key `password`). A missing generated Secret is created: with the
 * password the nodes run with, if there is one, so clients keep working; else with a new one. A missing
 * user Secret, or one without a usable `password`, is a problem naming the Secret and the key.
 */
async function passwordFromSecret(pass: ClusterPass, running: string | undefined): Promise<PasswordSource> {
  const { client, events, cr, namespace } = pass;
  const name = passwordSecretName(cr);
  const secret = await ignoreNotFound(client.get<Secret>(SECRET, name, namespace));
  if (!secret) {
    if (cr.spec.auth?.secretName) {
      return {
        reason: 'AuthSecretNotFound',
        message: `Secret ${name} (spec.auth.secretName) not found in namespace ${namespace}; it needs the key "password"`,
      };
    }
    const value = running ?? generatePassword();
    await client.create(desiredPasswordSecret(cr, value));
    events.event(
      cr,
      'Normal',
      'PasswordGenerated',
      'CreateSecret',
      running
        ? `Secret ${name} re-created with the password the cluster runs with`
        : `Secret ${name} created with a new password`,
    );
    return { password: value };
  }
  const encoded = secret.data?.[PASSWORD_KEY];
  if (encoded === undefined) {
    const keys = Object.keys(secret.data ?? {});
    return {
      reason: 'AuthSecretInvalid',
      message: `Secret ${name} in namespace ${namespace} has no key "${PASSWORD_KEY}" (keys: ${keys.join(', ') || 'none'})`,
    };
  }
  const raw = Buffer.from(encoded, 'base64');
  const flaw = passwordFlaw(raw);
  if (flaw) {
    return {
      reason: 'AuthSecretInvalid',
      message: `key "${PASSWORD_KEY}" of Secret ${name} in namespace ${namespace} ${flaw}`,
    };
  }
  return { password: raw.toString('utf8') };
}

/**
 * The passwords of this pass, with the auth.conf Secret written for them; undefined when there is none at
 * all (the status says why).
 */
export async function resolveAuth(pass: ClusterPass): Promise<Auth | undefined> {
  const { client, events, cr, namespace } = pass;
  // The password the nodes were started with, and the one before it while a rotation is rolling out.
  const authConfSecret = await ignoreNotFound(client.get<Secret>(SECRET, pass.names.authConf, namespace));
  const running = passwordOfAuthConf(decode(authConfSecret?.data?.[AUTH_CONF_KEY]));
  const carried = decode(authConfSecret?.data?.[PREVIOUS_PASSWORD_KEY]);
  const source = await passwordFromSecret(pass, running);
  let pw: string;
  let secretProblem: Problem | undefined;
  if ('password' in source) {
    pw = source.password;
  } else if (running !== undefined) {
    // A broken Secret must not take a working cluster down: keep the password it runs with.
    pw = running;
    secretProblem = source;
  } else {
    await writeFailure(pass, source);
    return undefined;
  }
  const previousCandidate = running !== undefined && running !== pw ? running : carried;
  const previous = previousCandidate !== pw ? previousCandidate : undefined;
  const authConfChanged = await ensureAuthConf(pass, pw, previous, authConfSecret);
  if (authConfChanged && running !== undefined && running !== pw) {
    events.event(
      cr,
      'Normal',
      'PasswordRotation',
      'UpdateSecret',
      `new password in Secret ${passwordSecretName(cr)}: switching the nodes over and restarting them`,
    );
  }
  return { password: pw, previous, secretProblem };
}

/** Every pod runs with the current password now, the cluster is ready: forget the previous one. */
export async function dropPreviousPassword(pass: ClusterPass, auth: Auth, sync: SyncResult): Promise<void> {
  if (!(sync.passwordSettled && auth.previous !== undefined && !sync.restartPod && sync.ready)) return;
  await ensureAuthConf(
    pass,
    auth.password,
    undefined,
    await ignoreNotFound(pass.client.get<Secret>(SECRET, pass.names.authConf, pass.namespace)),
  );
}
