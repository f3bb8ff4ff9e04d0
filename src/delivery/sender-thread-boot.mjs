// Starts the sender thread from TypeScript sources (tests, `tsx`): registers tsx's loader first.
// The built service runs sender-thread.js directly and does not use this file.
import { register } from 'tsx/esm/api';

register();
await import('./sender-thread.ts');
