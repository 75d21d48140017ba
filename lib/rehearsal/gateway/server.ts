import type { Gateway, GatewayOptions } from './index.js';

/** Start the gateway (stub; implemented next). */
export async function startGateway(_o: GatewayOptions): Promise<Gateway> {
  throw new Error('not implemented yet');
}
