// What the shell (app.tsx) gives every page: its own module, so pages need not import the shell that imports them.
import type { Session } from './session.js';

export interface PageProps {
  session: Session;
  /** Replaces the session (an admin picks an application, a token is created…). */
  update(change: Partial<Session>): void;
}
