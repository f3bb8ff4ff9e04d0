// A secret shown once (an application's API token): copy it now, it cannot be shown again.
import { CopyButton } from './ui.js';

export function OneTimeToken({ token, onDone }: { token: string; onDone?: () => void }) {
  return (
    <div class="notice notice--warn" role="status" id="new-token">
      <p>
        <strong>Your API token — shown only this once.</strong> Copy it into your backend's configuration now; tonwatch keeps only its hash. This console keeps
        it for this tab until you sign out.
      </p>
      <div class="secret">
        <code data-token>{token}</code>
        <CopyButton text={token} label="Copy token" />
      </div>
      {onDone && (
        <p>
          <button type="button" class="secondary" onClick={onDone}>
            I have saved it
          </button>
        </p>
      )}
    </div>
  );
}
