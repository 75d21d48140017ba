/**
 * Variables and connections in the rehearsal: SSM Parameter Store and Secrets Manager,
 * served in process by the gateway (after IAM, like the Scheduler emulator), one store each
 * per rehearsal, kept in memory for its life.
 */
import { secretsChecks } from '../actions-secretsmanager.js';
import { ssmChecks } from '../actions-ssm.js';
import type { Check, Scope } from '../checks.js';
import type { GatewayResponse } from '../errors.js';
import { SecretStore, serveSecrets } from './secrets.js';
import { ParameterStore, serveSsm } from './ssm.js';

export { ParameterStore, SecretStore };

export interface SettingsStores {
  parameters: ParameterStore;
  secrets: SecretStore;
}

/** Empty stores for a rehearsal in `scope`. */
export function settingsStores(scope: Scope): SettingsStores {
  return { parameters: new ParameterStore(scope), secrets: new SecretStore(scope) };
}

/**
 * The IAM checks of one SSM or Secrets Manager request, and how to serve it once they pass.
 *
 * @example
 * const { checks, serve } = settingsRequest('ssm', 'AmazonSSM.GetParameter', { Name: '/airless/variables/x' }, scope, stores, clock);
 */
export function settingsRequest(
  service: 'ssm' | 'secretsmanager', target: string, body: Record<string, unknown>, scope: Scope, stores: SettingsStores, clock: () => number,
): { checks: Check[]; serve: () => GatewayResponse } {
  if (service === 'ssm') return { checks: ssmChecks(target, body, scope), serve: () => serveSsm(stores.parameters, target, body, clock()) };
  return { checks: secretsChecks(target, body, scope, stores.secrets), serve: () => serveSecrets(stores.secrets, target, body, clock()) };
}
