// Who may do what: the admin key manages every application; an application's token reaches only
// its own application and invoices (anything else is a 404, so ids of others are not revealed).
import type { FastifyRequest } from 'fastify';
import { ApiError, forbidden, notFound, unauthorized } from '../../errors.js';
import { selectApp } from '../apps.js';
import { appIdOfOwnerRef, type App } from '../model.js';
import type { InvoicesService } from '../service.js';

export function isAdmin(request: FastifyRequest): boolean {
  return request.principal?.scopes.includes('admin') ?? false;
}

export function requireAdmin(request: FastifyRequest): void {
  if (!isAdmin(request)) throw forbidden('this needs the admin key');
}

/** The application whose token made the request; its replaced tokens stop working at once. */
export async function callerApp(service: InvoicesService, request: FastifyRequest): Promise<App> {
  const p = request.principal;
  const appId = appIdOfOwnerRef(p?.ownerRef);
  if (!p || appId === null) {
    throw forbidden("this key is not an application's API token: invoices are managed with the token of their application");
  }
  const app = service.deps.directory.app(appId) ?? (await selectApp(service.deps.store.db, appId));
  if (!app) throw unauthorized('the application of this token no longer exists');
  if (app.tokenKeyId !== null && app.tokenKeyId !== p.keyId) throw unauthorized('invalid or revoked API key');
  return app;
}

/** The application `id`, when the caller is the admin or that application's token. */
export async function accessibleApp(service: InvoicesService, request: FastifyRequest, id: number): Promise<App> {
  if (isAdmin(request)) return service.requireApp(id);
  const own = await callerApp(service, request);
  if (own.id !== id) throw notFound(`no application ${id}`);
  return own;
}

/** The app id of `?app_id=`, or the caller's own application for an application token. */
export async function appIdParam(service: InvoicesService, request: FastifyRequest, raw: unknown): Promise<App> {
  if (raw === undefined || raw === '') {
    if (isAdmin(request)) throw new ApiError(400, 'app_id is required with the admin key', { field: 'app_id' });
    return callerApp(service, request);
  }
  const id = Number(raw);
  if (!Number.isSafeInteger(id) || id < 1) throw new ApiError(400, 'app_id must be a positive integer', { field: 'app_id' });
  return accessibleApp(service, request, id);
}
