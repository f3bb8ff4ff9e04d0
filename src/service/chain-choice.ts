// What the service gets from its chain source choice (chain.ts): the source, its network profile, and
// what the source itself has to say to operators.
import type { Registry } from 'prom-client';
import type { NetworkProfile } from '../chain/profile.js';
import type { ChainSource } from '../chain/source.js';
import type { HealthReport } from '../http/health.js';

export interface ChainChoice {
  source: ChainSource;
  /** The source's network profile with the configured overrides; call after `source.start()`. */
  profile(): Promise<NetworkProfile>;
  /**
   * The source's own readiness for `/readyz` (liteservers: servers, trust, waiting reasons), when it
   * has more to say than the follower's lag; the devnet and replay have none.
   */
  health?: () => HealthReport;
  /** Registers the source's own gauges (per-server heads, failures, disproven replies). */
  registerMetrics?: (registry: Registry) => void;
}
