// What the matcher and the API look up on every block or request, kept in memory: applications,
// the accounts that receive payments (recipients and their USDT jetton wallets) and the webhook
// endpoints of each application. Changes made through this process apply at once; `refresh`
// reloads everything from the store (at start and periodically, for changes by other processes).
import type { Kysely } from 'kysely';
import type { AccountId } from '../chain/model.js';
import type { DeliveryEngine } from '../delivery/index.js';
import { selectApps, selectRecipients, type RecipientRow } from './apps.js';
import { appIdOfOwnerRef, type App } from './model.js';

export const ENDPOINT_PRODUCER = 'invoices';

export class AppDirectory {
  private apps = new Map<number, App>();
  /** Recipient wallet → applications paid there. */
  private recipients = new Map<AccountId, Set<number>>();
  /** USDT jetton wallet (as the master derives it) → its owner, a recipient. */
  private usdtWallets = new Map<AccountId, AccountId>();
  /** Recipient → its USDT jetton wallet. */
  private walletOfRecipient = new Map<AccountId, AccountId>();
  private endpoints = new Map<number, number[]>();
  /** Bumped by every change made here, so a refresh that raced with one reads again. */
  private generation = 0;

  constructor(
    private readonly db: Kysely<any>,
    private readonly engine: DeliveryEngine,
  ) {}

  async refresh(): Promise<void> {
    for (let tries = 0; tries < 5; tries++) {
      const generation = this.generation;
      const loaded = await this.load();
      if (generation !== this.generation) continue;
      Object.assign(this, loaded);
      return;
    }
  }

  private async load() {
    const [apps, recipients, endpoints] = await Promise.all([
      selectApps(this.db),
      selectRecipients(this.db),
      this.engine.listEndpoints({ producer: ENDPOINT_PRODUCER }),
    ]);
    const next = new AppDirectory(this.db, this.engine);
    for (const a of apps) next.apps.set(a.id, a);
    for (const r of recipients) next.addRecipient(r);
    for (const e of endpoints) {
      const appId = appIdOfOwnerRef(e.owner);
      if (appId !== null) next.addEndpoint(appId, e.id);
    }
    const { apps: a, recipients: r, usdtWallets, walletOfRecipient, endpoints: ep } = next;
    return { apps: a, recipients: r, usdtWallets, walletOfRecipient, endpoints: ep };
  }

  app(id: number): App | undefined {
    return this.apps.get(id);
  }

  setApp(app: App): void {
    this.generation++;
    this.apps.set(app.id, app);
  }

  addRecipient(r: RecipientRow): void {
    this.generation++;
    let set = this.recipients.get(r.account);
    if (!set) this.recipients.set(r.account, (set = new Set()));
    set.add(r.appId);
    if (r.usdtWallet) {
      this.usdtWallets.set(r.usdtWallet, r.account);
      this.walletOfRecipient.set(r.account, r.usdtWallet);
    }
  }

  removeApp(id: number): void {
    this.generation++;
    this.apps.delete(id);
    this.endpoints.delete(id);
    for (const [account, set] of this.recipients) {
      set.delete(id);
      if (set.size > 0) continue;
      this.recipients.delete(account);
      const wallet = this.walletOfRecipient.get(account);
      if (wallet) this.usdtWallets.delete(wallet);
      this.walletOfRecipient.delete(account);
    }
  }

  isRecipient(account: AccountId): boolean {
    return this.recipients.has(account);
  }

  /** The recipient owning this USDT jetton wallet, when it is one of ours. */
  usdtOwner(jettonWallet: AccountId): AccountId | undefined {
    return this.usdtWallets.get(jettonWallet);
  }

  usdtWalletOf(recipient: AccountId): AccountId | undefined {
    return this.walletOfRecipient.get(recipient);
  }

  endpointsOf(appId: number): readonly number[] {
    return this.endpoints.get(appId) ?? [];
  }

  addEndpoint(appId: number, endpointId: number): void {
    this.generation++;
    this.endpoints.set(appId, [...this.endpointsOf(appId), endpointId]);
  }

  removeEndpoint(appId: number, endpointId: number): void {
    this.generation++;
    this.endpoints.set(appId, this.endpointsOf(appId).filter((id) => id !== endpointId));
  }

  get size(): { apps: number; recipients: number; usdt_wallets: number } {
    return { apps: this.apps.size, recipients: this.recipients.size, usdt_wallets: this.usdtWallets.size };
  }
}
