export {
  DurableSubscription,
  type DurableSubscriptionOptions,
  type EventHandler,
  type EventSource,
  type PauseOptions,
  type PositionedEvent,
  type SubscribeOptions,
} from './durable-subscription.js';
export type { CheckpointPolicy } from './checkpoint-policy.js';
export type { HandlerContext } from './handler-context.js';
export { DuplicateSubscriberError } from './duplicate-subscriber-error.js';
export { DuplicateSubscriptionIdError } from './duplicate-subscription-id-error.js';
export { FencingTokenReusedError } from './fencing-token-reused-error.js';
export { UnknownSubscriptionError } from './unknown-subscription-error.js';
