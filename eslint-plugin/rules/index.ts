import type { RuleName } from '../plugin-types.js';
import { noCachedFencingToken } from './no-cached-fencing-token.js';
import { noCheckThenWrite } from './no-check-then-write.js';
import { noIgnoredWriteCondition } from './no-ignored-write-condition.js';
import { noReadModifyWriteAnchor } from './no-read-modify-write-anchor.js';
import { noRetryAfterRefusal } from './no-retry-after-refusal.js';
import { noSplitAnchorHeartbeat } from './no-split-anchor-heartbeat.js';
import { noTokenWithoutWrite } from './no-token-without-write.js';
import { noUnfencedWrite } from './no-unfenced-write.js';
import { noUnguardedHistoryReset } from './no-unguarded-history-reset.js';
import { requireUpsertInAnchorWrite } from './require-upsert-in-anchor-write.js';

/** Every rule of the plugin by its name; `satisfies` keeps the published RuleName list exactly these keys. */
export const rules = {
  'no-unfenced-write': noUnfencedWrite,
  'no-ignored-write-condition': noIgnoredWriteCondition,
  'no-retry-after-refusal': noRetryAfterRefusal,
  'no-token-without-write': noTokenWithoutWrite,
  'no-cached-fencing-token': noCachedFencingToken,
  'no-check-then-write': noCheckThenWrite,
  'no-read-modify-write-anchor': noReadModifyWriteAnchor,
  'require-upsert-in-anchor-write': requireUpsertInAnchorWrite,
  'no-unguarded-history-reset': noUnguardedHistoryReset,
  'no-split-anchor-heartbeat': noSplitAnchorHeartbeat,
} satisfies Record<RuleName, unknown>;
