/** Settings both demo programs share. */
export const demoSubscriptionId = 'demo-orders';
export const demoEventsKey = 'demo:events';
/** Short, so a take-over is quick to watch; the library's default is 20 s. */
export const demoLeaseTimeMs = 1_500;
/** Each event takes this long to handle: slow enough to watch. */
export const handlerWorkMs = 150;
